"""A Markdown table row with too few words of its own to tell its language (figures, units,
chemical symbols, labels: ``| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |``) takes the language of the
answer's other words, its headers or the prose around it, in each of the seven languages: it is
not read as Uzbek or Northern Sotho for ``mmol``. A table whose words are in a language without
rules stays undetermined, and so does a row with words enough of such a language."""

from __future__ import annotations

import pytest
from tests.unit.graders.bands import label

from proctor.graders import CheckOutcome
from proctor.graders._languages import languages

P = CheckOutcome.PASS
U = CheckOutcome.UNDETERMINED
FLAGS = ["LOW", "NORMAL", "HIGH", "CRITICAL_HIGH"]
ROWS = (
    "|---|---|---|\n| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |\n| Na+ | 138 mmol/L | NORMAL |\n"
    "| Cl- | 101 mmol/L | NORMAL |"
)


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("| Parameter | Result value | Flag |", "en"),
        ("| Paramètre | Résultat | Drapeau |", "fr"),
        ("| Parameter | Ergebnis | Kennzeichnung |", "de"),
        ("| Parámetro | Resultado | Indicador |", "es"),
        ("| Parâmetro | Resultado | Sinalizador |", "pt"),
        ("| Parametro | Risultato | Segnalazione |", "it"),
        ("| Parameter | Uitslag | Vlag |", "nl"),
    ],
)
def test_rows_of_figures_take_the_language_of_the_headers(header: str, language: str) -> None:
    answer = f"{header}\n{ROWS}"
    outcome, reason = label(answer, "CRITICAL_HIGH", FLAGS)
    assert outcome is P, reason
    found = languages(answer)
    assert all(s.supported for s in found.sentences), found


def test_the_examiners_french_table() -> None:
    answer = (
        "| Paramètre | Résultat | Drapeau |\n|---|---|---|\n| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |\n"
        "| Na+ | 138 mmol/L | NORMAL |\n| Créatinine | 212 µmol/L | HIGH |"
    )
    outcome, reason = label(answer, "CRITICAL_HIGH", FLAGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        "Kaliumwaarde duidelijk verhoogd, direct de arts bellen.\n\n| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |\n"
        "| Na+ | 138 mmol/L | NORMAL |",
        "Le potassium est nettement trop élevé, il faut appeler le médecin.\n\n"
        "| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |\n| Na+ | 138 mmol/L | NORMAL |",
        # a row alone: no word to tell, every table reads it
        "| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |",
    ],
)
def test_rows_take_the_language_of_the_prose(answer: str) -> None:
    outcome, reason = label(answer, "CRITICAL_HIGH", FLAGS)
    assert outcome is P, reason


@pytest.mark.parametrize(
    "answer",
    [
        # Polish headers and prose: no rules, undetermined
        "Wartość potasu jest bardzo wysoka, trzeba natychmiast dzwonić do lekarza.\n\n"
        "| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |\n| Na+ | 138 mmol/L | NORMAL |",
        "Wyniki badań potasu są bardzo wysokie.\n\n| Parametr | Wynik | Flaga |\n" + ROWS,
        # a row with words enough of its own is still read as its language
        "| Paramètre | Résultat | Drapeau |\n|---|---|---|\n"
        "| K+ | 6,9 mmol/L, wartość jest bardzo wysoka i niebezpieczna | **CRITICAL_HIGH** |",
    ],
)
def test_a_table_in_a_language_without_rules_stays_undetermined(answer: str) -> None:
    outcome, reason = label(answer, "CRITICAL_HIGH", FLAGS)
    assert outcome is U, reason
