"""Invisible characters vanish before language detection (issue 25, "a grader that cannot read a
text"): a zero-width space, a soft hyphen or a control inside a word once split it, so "Ni la más
re\\u200bmota i\\u200bdea." read as Extremaduran and the refusal grader said *undetermined* where the
Spanish is plain. An answer read with its invisible characters is read as the same answer without
them: the same languages, the same sentences (at the positions of the text as written), the same
verdict."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import CheckOutcome, compile_assertion
from proctor.graders._languages import languages

#: The characters the canonical form removes (``graders/_canon.py``), one of each kind: zero-width
#: space, non-joiner, joiner, word joiner, byte order mark, soft hyphen, left-to-right mark,
#: invisible separator, variation selector, combining grapheme joiner, an ASCII and a C1 control.
INVISIBLE = [
    "\u200b",
    "\u200c",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u200e",
    "\u2063",
    "\ufe0f",
    "\u034f",
    "\x07",
    "\x9b",
]

#: Real sentences (declining and stating facts), as people write them, per supported language.
SENTENCES = {
    "es": [
        "Ni la más remota idea.",
        "Lo siento, pero no puedo responder a esa pregunta.",
        "El consumo de aceite del motor dos está por encima de lo normal.",
    ],
    "fr": [
        "Aucune idée, désolé.",
        "Je ne suis pas en mesure de répondre à cette question.",
        "La consommation d'huile du moteur deux est plus élevée que d'habitude.",
    ],
    "de": [
        "Keine Ahnung, tut mir leid.",
        "Der Ölverbrauch von Triebwerk zwei liegt über dem Normalwert.",
    ],
    "it": [
        "Purtroppo non sono in grado di rispondere.",
        "Il consumo di olio del motore due è più alto del solito.",
    ],
    "pt": [
        "Infelizmente não consigo responder a essa pergunta.",
        "O consumo de óleo do motor dois está acima do normal.",
    ],
    "nl": ["Dat kan ik helaas niet zeggen.", "Het olieverbruik van motor twee ligt hoger dan normaal."],
    "en": ["I have no idea, sorry.", "The oil consumption of engine two is higher than usual."],
}
ALL_SENTENCES = [(lang, s) for lang, xs in SENTENCES.items() for s in xs]

REFUSAL = compile_assertion(Assertion(type="refusal"))


def _in_words(sentence: str, ch: str) -> str:
    """``ch`` in the middle of every word of four letters or more."""
    return " ".join(
        w[: len(w) // 2] + ch + w[len(w) // 2 :] if len(w) >= 4 else w for w in sentence.split(" ")
    )


def _visible(text: str) -> str:
    return "".join(ch for ch in text if ch not in INVISIBLE)


def test_a_spanish_refusal_with_zero_width_spaces_inside_words_is_read_as_spanish() -> None:
    text = "Ni la más re\u200bmota i\u200bdea."
    assert [s.language for s in languages(text).sentences] == ["es"]
    c = REFUSAL.check(text)
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_invisible_characters_inside_words_never_change_a_sentences_language() -> None:
    # each of these, split by the character, read as another language or as too short to tell
    cases = [
        ("O consumo de óleo do motor dois está acima do normal.", "\u2060", "pt"),  # Galician
        ("O consumo de óleo do motor dois está acima do normal.", "\x07", "pt"),
        ("Het olieverbruik van motor twee ligt hoger dan normaal.", "\u00ad", "nl"),  # Afrikaans
        ("I have no idea, sorry.", "\x07", "en"),  # two words of three letters: neutral
        ("I have no idea, sorry.", "\ufeff", "en"),
    ]
    for sentence, ch, lang in cases:
        text = _in_words(sentence, ch)
        assert [s.language for s in languages(text).sentences] == [lang], (sentence, ch)
        assert REFUSAL.check(text).outcome is REFUSAL.check(sentence).outcome, (sentence, ch)


def test_sentences_keep_the_positions_of_the_text_as_written() -> None:
    es, nl = "Ni la más remota idea.", "Het olieverbruik van motor twee ligt hoger dan normaal."
    text = "\u200b" + _in_words(es, "\u200b") + " " + _in_words(nl, "\u00ad") + "\u2060"
    first, second = languages(text).sentences
    assert (first.language, second.language) == ("es", "nl")
    assert first.end == second.start and second.end == len(text)
    assert _visible(text[first.start : first.end]) == es
    assert _visible(text[second.start :]) == " " + nl
    # the invisible character before the first sentence is in it, not in the last one
    assert languages(text).at(0) == first


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from(ALL_SENTENCES), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(INVISIBLE)), min_size=1, max_size=12),
)
def test_an_answer_is_read_as_the_same_answer_without_its_invisible_characters(
    picked: list[tuple[str, str]], insertions: list[tuple[int, str]]
) -> None:
    clean = " ".join(s for _, s in picked)
    text = clean
    for where, ch in insertions:
        at = where % (len(text) + 1)
        text = text[:at] + ch + text[at:]
    want, got = languages(clean), languages(text)
    assert got.overall == want.overall
    assert [s.language for s in got.sentences] == [s.language for s in want.sentences]
    # each sentence is the same text, at the positions of the answer as written
    assert [_visible(text[s.start : s.end]).strip() for s in got.sentences] == [
        clean[s.start : s.end].strip() for s in want.sentences
    ]
    assert REFUSAL.check(text).outcome is REFUSAL.check(clean).outcome
