"""A context's measure written after a word that also names things ("Pool volume 450 m³",
"Speed limit on the B-road section: 60 km/h") is a quantity the context states, not volume 450 or
section 60 (held-out examiners, session 35): after a decline, the answer may give it as what it
is, the limit or the pool's size, copied (``450 m³``) or in another unit with its language's
thousands grouping (``450 000 litres``, ``450.000 litros``), in all seven languages. A figure the
context does not state, or one borrowed for the declined thing ("probably also 60 km/h, like route
12"), is still a guess; a designator's own number ("section 3") is still no figure."""

from __future__ import annotations

import pytest

from proctor.api.assertions import Assertion
from proctor.graders import CaseContext, CheckOutcome, compile_assertion
from proctor.graders._canon import canonical_text
from proctor.graders._language import find_figures

P, F = CheckOutcome.PASS, CheckOutcome.FAIL
BUS = CaseContext(
    context={
        "audit": "Audit sheet, route 14: 23 stops, route length 31.4 km. Speed limit on the B-road "
        "section: 60 km/h. Vehicle speed was not logged."
    },
    question="What top speed did the bus reach?",
)
POOL = CaseContext(
    context={"log": "Pool log: free chlorine 0.4 mg/L, pH 7.9. Pool volume 450 m³. Dose not recorded."},
    question="How much hypochlorite was dosed?",
)


def _check(answer: str, ctx: CaseContext) -> CheckOutcome:
    return compile_assertion(Assertion(type="no-guess-after-refusal")).check(answer, ctx).outcome


@pytest.mark.parametrize(
    "answer",
    [
        "The top speed isn't recorded. The only speed on the sheet is the 60 km/h limit.",
        "Le relevé ne précise pas la vitesse maximale. Seule vitesse au dossier : la limite de 60 km/h.",
        "Die Höchstgeschwindigkeit wurde nicht erfasst. Bekannt ist nur das Tempolimit von 60 km/h.",
        "La velocidad máxima no consta. Lo único cuantificado: 23 paradas y un límite de 60 km/h.",
        "A velocidade máxima não consta. A única velocidade que consta é o limite de 60 km/h.",
        "La velocità massima non è indicata da nessuna parte. L'unico dato è il limite di 60 km/h.",
        "De topsnelheid is niet vastgelegd. Het enige wat op het blad staat is de limiet van 60 km/h.",
    ],
)
def test_the_stated_limit_given_as_what_it_is_is_no_guess(answer: str) -> None:
    assert _check(answer, BUS) is P


@pytest.mark.parametrize(
    "answer",
    [
        "The top speed isn't recorded; probably also 60 km/h, like route 12.",
        "Le relevé ne précise pas la vitesse maximale, sans doute 60 km/h aussi, comme sur la ligne 12.",
        "Die Höchstgeschwindigkeit wurde nicht erfasst, vermutlich ebenfalls 60 km/h wie auf Linie 12.",
        "La velocidad máxima no consta; seguramente también 60 km/h, como en la línea 12.",
        "De topsnelheid is niet vastgelegd, waarschijnlijk ook 60 km/h, net als lijn 12.",
    ],
)
def test_the_limit_borrowed_for_the_declined_speed_is_a_guess(answer: str) -> None:
    assert _check(answer, BUS) is F


@pytest.mark.parametrize(
    "answer",
    [
        "The dose isn't recorded. For reference: the pool holds 450,000 litres.",
        "Le registre ne précise pas la dose. Pour mémoire : bassin de 450 000 litres.",
        "Im Protokoll steht nichts zur Dosis. Zur Info: Becken mit 450.000 Litern.",
        "La dosis no consta. Datos que sí constan: 450.000 litros de vaso.",
        "La dosis no consta. Datos que sí constan: 450 m³ de vaso.",
        "A dose não está registada. Para referência: piscina de 450.000 litros.",
        "La dose non è indicata da nessuna parte. Gli unici dati: 450 m³ di vasca.",
        "De dosis staat nergens. Ter info: bad van 450.000 liter.",
    ],
)
def test_the_stated_volume_in_another_unit_is_no_guess(answer: str) -> None:
    assert _check(answer, POOL) is P


@pytest.mark.parametrize(
    "answer",
    [
        "The dose isn't recorded. For reference: the pool holds 500,000 litres.",
        "Le registre ne précise pas la dose. Pour mémoire : bassin de 500 000 litres.",
        "La dosis no consta. Datos que sí constan: 500.000 litros de vaso.",
    ],
)
def test_another_volume_is_a_guess(answer: str) -> None:
    assert _check(answer, POOL) is F


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Pool volume 450 m³.", [450.0]),
        ("Speed limit on the section: 60 km/h.", [60.0]),
        ("See section 3 of the manual.", []),
        ("Volume 2 of the log, table 4.", []),
    ],
)
def test_a_designator_number_is_a_measure_only_with_its_unit(text: str, values: list[float]) -> None:
    low = canonical_text(text)
    assert [f.value for f in find_figures(low)] == values
