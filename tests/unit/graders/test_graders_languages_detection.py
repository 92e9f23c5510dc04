"""How an answer's sentences get their languages (``proctor.graders._languages``): which short
sentences are told and which stay neutral, which neighbour a supported language wins over, and
how the sentences, their positions and the languages whose rules read them are kept. A wrong
detection is a confident verdict on text the graders cannot read, or an undetermined one on text
they can."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from proctor.api.assertions import Assertion
from proctor.graders import SUPPORTED_LANGUAGES, CheckOutcome, Unread, compile_assertion
from proctor.graders._languages import (
    _NOT_WORDS,
    COMMON_ZIPF,
    Languages,
    Sentence,
    _common_only_in,
    _decide,
    _likeliest_listed,
    describe,
    detect,
    languages,
)

ALL = frozenset(SUPPORTED_LANGUAGES)
#: "I don't know" in Russian
RU_DONT_KNOW = "\u041d\u0435 \u0437\u043d\u0430\u044e."


def _unsupported(lang: str | None) -> bool:
    return lang is not None and lang not in SUPPORTED_LANGUAGES


def test_an_uncertain_unsupported_first_choice_gives_way_to_a_supported_language_close_behind() -> None:
    # Galician first for a short Portuguese sentence, Portuguese at half its probability or more
    assert _decide([("gl", 0.4), ("pt", 0.2)]) == "pt"
    assert _decide([("gl", 0.4), ("oc", 0.3), ("pt", 0.25)]) == "pt"  # not only the second choice
    assert _decide([("gl", 0.4), ("pt", 0.19)]) == "gl"  # too far behind
    assert _decide([("gl", 0.4), ("oc", 0.3)]) == "gl"  # nothing supported behind it


def test_short_sentences_the_model_ranks_just_behind_a_neighbour_are_read_in_their_language() -> None:
    # Extremaduran 0.335 before Spanish 0.333; Venetian 0.21 and Ligurian 0.19 before Italian 0.18
    assert detect("Ni la más remota idea.") == "es"
    assert detect("Boh, chissà, amico.") == "it"
    assert languages("Ni la más remota idea.").sentences[0].supported


def test_a_certain_first_choice_or_a_supported_one_is_kept() -> None:
    assert _decide([("ca", 0.5), ("es", 0.45)]) == "ca"  # from 0.5 the first choice is certain
    assert _decide([("gl", 0.9), ("pt", 0.1)]) == "gl"
    assert _decide([("ca", 0.6), ("es", 0.35)]) == "ca"  # above 0.5: kept, whatever is close behind
    # ... but Galician, Portuguese's neighbour, only from 0.8 (European Portuguese ranks it 0.55-0.61)
    assert _decide([("gl", 0.6), ("pt", 0.35)]) == "pt"
    assert _decide([("gl", 0.85), ("pt", 0.14)]) == "gl"
    assert _decide([("pt", 0.1), ("gl", 0.09)]) == "pt"
    assert _decide([("af", 0.3)]) == "af"


def test_a_sentence_of_three_words_is_told_two_are_told_only_when_the_model_is_sure() -> None:
    assert detect("Ikke sikker her.") == "no"  # three words, Norwegian at 0.49: told
    assert detect("Não sei bem.") == "pt"
    assert detect("Ingen aning.") == "sv"  # two words, Swedish at 0.27, "aning" in no list of the seven
    assert detect("Je ne sais pas.") is None  # "ne" is too short to count: two words
    assert detect("Keine Ahnung.") is None  # two words of a supported language: neutral
    assert detect("Nie wiem.") == "pl"  # two words the model is sure of (0.81)
    assert detect("Bilmiyorum.") == "tr"  # one word it is sure of


def test_another_script_is_told_from_a_few_letters_even_when_the_model_is_unsure() -> None:
    lang = detect(RU_DONT_KNOW)  # Russian, the model splits it among its neighbours (0.38 first)
    assert _unsupported(lang), lang


def test_letters_past_latin_extended_b_are_another_script() -> None:
    from proctor.graders._languages import _other_script

    assert _other_script("\u0250") and _other_script("Ωmega")  # IPA, Greek
    assert not _other_script("\u024f") and not _other_script("Ærøskøbing 42")


def test_figures_labels_and_identifiers_alone_are_neutral() -> None:
    assert detect("ELEVATED 0.45 qt/hr (AMM-72-00).") is None
    assert detect("") is None


def test_a_short_russian_answer_is_undetermined_never_a_confident_verdict() -> None:
    c = compile_assertion(Assertion(type="refusal")).check(RU_DONT_KNOW)
    assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, c.reason


def test_a_short_swedish_phrase_is_undetermined_not_read_by_the_seven() -> None:
    # too short for the model alone, but "aning" is a Swedish word and in no supported language's
    # list: the refusal is not read as a sentence without declining (a confident FAIL)
    for kind in ("refusal", "not-refusal"):
        c = compile_assertion(Assertion(type=kind)).check("Ingen aning.")
        assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, c.reason


def test_each_sentence_gets_its_own_language_and_short_ones_the_whole_answers() -> None:
    text = "Je ne peux pas répondre à cette question. ELEVATED. Das Triebwerk verbraucht zu viel Öl."
    langs = languages(text)
    assert [(text[s.start : s.end].strip(), s.language) for s in langs.sentences] == [
        ("Je ne peux pas répondre à cette question.", "fr"),
        ("ELEVATED.", langs.overall),
        ("Das Triebwerk verbraucht zu viel Öl.", "de"),
    ]
    assert langs.overall in ("fr", "de")


def test_text_after_the_last_sentence_end_is_a_sentence_of_its_own() -> None:
    text = "Je ne peux pas répondre à cette question. Das Triebwerk verbraucht zu viel Öl"
    langs = languages(text)
    assert [s.language for s in langs.sentences] == ["fr", "de"]
    assert langs.sentences[-1].end == len(text)


def test_the_whole_answer_is_the_language_most_of_its_sentences_are_in() -> None:
    text = (
        "Das Triebwerk verbraucht zu viel Öl. Le moteur consomme trop d'huile aujourd'hui. "
        "Il faut surveiller la consommation de près."
    )
    langs = languages(text)
    assert [s.language for s in langs.sentences] == ["de", "fr", "fr"]
    assert langs.overall == "fr"


def test_most_sentences_decide_the_whole_unless_one_is_too_short_to_tell() -> None:
    # one long German sentence, two short French ones: the whole is French (two of three)
    text = (
        "Das Triebwerk zwei verbraucht seit dem letzten Flug deutlich mehr Öl als im Handbuch "
        "angegeben. Le moteur chauffe trop. Il faut surveiller cela."
    )
    assert [s.language for s in languages(text).sentences] == ["de", "fr", "fr"]
    assert languages(text).overall == "fr"
    # a sentence too short to tell: the whole text is detected (mostly French), and the short
    # sentence takes its language, though more sentences are German
    text = (
        "La consommation d'huile du moteur deux a nettement augmenté depuis le dernier vol, bien "
        "au-delà du manuel. ELEVATED. Das ist zu viel. Bitte prüfen Sie das."
    )
    assert [s.language for s in languages(text).sentences] == ["fr", "fr", "de", "de"]
    assert languages(text).overall == "fr"


def test_blank_text_and_blank_sentences_are_neutral() -> None:
    assert languages("   ").sentences == (Sentence(0, 3, None),)
    langs = languages("Das Triebwerk verbraucht zu viel Öl.  \n\n")
    assert [(s.start, s.language) for s in langs.sentences] == [(0, "de")]


#: Latin letters and the Cyrillic ones that look the same
LOOK_ALIKES = str.maketrans(
    {"e": "\u0435", "o": "\u043e", "a": "\u0430", "p": "\u0440", "c": "\u0441", "x": "\u0445"}
)


def test_look_alike_and_invisible_letters_are_read_as_the_letters_they_imitate() -> None:
    # a French refusal written with Cyrillic look-alikes (read as written: Bulgarian), and a
    # zero-width space inside a word: still French, offsets those of the text as written
    text = "Je ne peux pas r\u00e9p\u200bondre \u00e0 cette question.".translate(LOOK_ALIKES)
    langs = languages(text)
    assert [(s.start, s.end, s.language) for s in langs.sentences] == [(0, len(text), "fr")]
    c = compile_assertion(Assertion(type="refusal")).check(text)
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_a_ligature_keeps_its_place_in_the_text() -> None:
    text = "Die Quali\ufb01kation des Prüfers ist unbekannt. Das Triebwerk verbraucht zu viel Öl."
    langs = languages(text)
    assert [s.language for s in langs.sentences] == ["de", "de"]
    assert text[langs.sentences[1].start :].strip() == "Das Triebwerk verbraucht zu viel Öl."


FR_JA_NEUTRAL = Languages(
    (Sentence(0, 10, "fr"), Sentence(10, 20, "ja"), Sentence(20, 30, None), Sentence(30, 40, "ja")), None
)


def test_each_position_is_in_the_sentence_that_holds_it() -> None:
    at = FR_JA_NEUTRAL.at
    assert [at(p).start for p in (0, 9, 10, 19, 20, 39, 40, 99)] == [0, 0, 10, 10, 20, 30, 30, 30]


def test_the_unsupported_sentences_overlapping_a_range() -> None:
    def starts(*args: int | None) -> list[int]:
        return [s.start for s in FR_JA_NEUTRAL.unsupported(*args)]  # type: ignore[arg-type]

    assert starts() == [10, 30]
    assert starts(0, 10) == []  # [0, 10) ends where the Japanese sentence starts
    assert starts(0, 11) == [10]
    assert starts(20) == [30]  # from 20: the sentence that ends at 20 is not in it
    assert starts(25) == [30]  # nor one that ends before the range starts
    assert starts(19, 31) == [10, 30]


def test_the_languages_whose_rules_read_a_text() -> None:
    assert FR_JA_NEUTRAL.present == ALL  # a neutral sentence: every language's rules read it
    assert Languages((Sentence(0, 9, "fr"), Sentence(9, 20, None)), "de").present == {"fr", "de"}
    assert Languages((Sentence(0, 9, "fr"), Sentence(9, 20, "ja")), "fr").present == {"fr"}
    assert Languages((Sentence(0, 9, "ja"),), "ja").present == frozenset()
    assert Languages((Sentence(0, 9, "ja"), Sentence(9, 20, "ru")), None).present == ALL


def test_the_languages_whose_rules_read_a_sentence() -> None:
    assert FR_JA_NEUTRAL.rules_at(0) == {"fr"}
    assert FR_JA_NEUTRAL.rules_at(10) == frozenset()
    assert FR_JA_NEUTRAL.rules_at(25) == ALL


def test_a_reason_names_each_unsupported_language_once() -> None:
    ja, ru, pl = Sentence(0, 1, "ja"), Sentence(1, 2, "ru"), Sentence(2, 3, "pl")
    assert describe([ja]) == "ja"
    assert describe([ja, Sentence(5, 6, "ja")]) == "ja"
    assert describe([ja, ru]) == "ja and ru"
    assert describe([ja, ru, pl]) == "ja, ru and pl"
    assert describe([Sentence(0, 1, None), ja]) == "? and ja"


def test_a_two_character_answer_in_another_script_is_undetermined_never_a_confident_verdict() -> None:
    # no word of three letters, but letters of another script: Japanese "unknown", Korean "don't know"
    for answer in ("\u4e0d\u660e\u3002", "\ubaa8\ub984."):
        c = compile_assertion(Assertion(type="refusal")).check(answer)
        assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, (answer, c.reason)


def test_a_one_character_answer_in_another_script_is_undetermined_by_every_language_grader() -> None:
    # Chinese "no" (否), "not" (不): the whole answer is one character; no grader may read it as
    # an answer that names no label, declines nothing or claims no agreement
    graders = [
        Assertion(type="label", value="NORMAL", labels=["NORMAL", "HIGH"]),
        Assertion(type="refusal"),
        Assertion(type="no-guess-after-refusal"),
        Assertion(type="no-manufactured-consensus"),
    ]
    for answer in ("\u5426", "\u4e0d"):
        for a in graders:
            c = compile_assertion(a).check(answer)
            assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, (answer, c.reason)
            assert "(zh;" in c.reason


def test_words_of_no_language_leave_a_short_refusal_readable() -> None:
    # placeholders the model reads as "no linguistic content" (zxx): no language, not an unsupported one
    c = compile_assertion(Assertion(type="refusal")).check("Keine Ahnung. qqq xxx zzz")
    assert c.outcome is CheckOutcome.PASS, c.reason


#: Short sentences (one or two words of three letters or more) of languages without rules, which
#: the model ranks far above every supported language (Serbian, Slovak, Indonesian, Estonian,
#: Bosnian, Slovene, Croatian), each with a function word a table could misread ("ne", "ei", "je")
UNSUPPORTED_SHORT = [
    "Riziko je MEDIUM, ne HIGH.",
    "Riziko je MEDIUM, nie HIGH.",
    "Risikonya MEDIUM, bukan HIGH.",
    "Penilaiannya MEDIUM.",
    "Riski on MEDIUM, ei HIGH.",
    "Hinnang on MEDIUM.",
    "Procjena je MEDIUM.",
    "Tveganje je MEDIUM, ne HIGH.",
    "Rizik je MEDIUM, a ne HIGH.",
]
#: Short sentences of the supported languages that the model ranks low, some below an unsupported
#: language (Latin for "Dunno." and "Verdict:", Danish for "Avis :", Basque for "Ni idea."): they
#: stay readable
SUPPORTED_SHORT = [
    ("Dunno.", "refusal", CheckOutcome.PASS),
    ("Boh.", "refusal", CheckOutcome.PASS),
    ("Ni idea.", "refusal", CheckOutcome.PASS),
    ("No idea.", "refusal", CheckOutcome.PASS),
    ("Veredicto: MEDIUM.", "label", CheckOutcome.PASS),
    ("Avis : MEDIUM.", "label", CheckOutcome.PASS),
    ("Verdict: MEDIUM.", "label", CheckOutcome.PASS),
    ("Risk: HIGH.", "label", CheckOutcome.FAIL),
    ("Pas HIGH.", "label", CheckOutcome.FAIL),
    ("Sí, es MEDIUM.", "label", CheckOutcome.PASS),
]


def test_a_short_sentence_far_likelier_in_an_unsupported_language_is_undetermined_by_every_grader() -> None:
    graders = [
        Assertion(type="label", value="MEDIUM", labels=["LOW", "MEDIUM", "HIGH"]),
        Assertion(type="refusal"),
        Assertion(type="not-refusal"),
        Assertion(type="no-guess-after-refusal"),
        Assertion(type="no-manufactured-consensus"),
    ]
    for answer in UNSUPPORTED_SHORT:
        assert _unsupported(detect(answer)), answer
        for a in graders:
            c = compile_assertion(a).check(answer)
            assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, (
                answer,
                a.type,
                c.reason,
            )


def test_a_short_sentence_of_a_supported_language_ranked_low_is_still_read() -> None:
    for answer, grader, expected in SUPPORTED_SHORT:
        assert not _unsupported(detect(answer)), answer
        a = (
            Assertion(type="label", value="MEDIUM", labels=["LOW", "MEDIUM", "HIGH"])
            if grader == "label"
            else Assertion(type=grader)
        )
        c = compile_assertion(a).check(answer)
        assert c.outcome is expected, (answer, c.reason)


#: Short sentences (one or two words of their own) of languages without rules: each holds a word
#: of its language that the seven's lists do not have, or have far more rarely.
SHORT_FOREIGN = [
    "Ei RED vaan AMBER.",  # Finnish: "vaan"
    "Ikke RED.",  # Danish: "ikke" is in the Dutch list, a hundred times rarer
    "Ikke RØD, men AMBER.",
    "Inte RED utan AMBER.",  # Swedish
    "Nem tudom.",  # Hungarian
    "Nem RED, hanem AMBER.",
    "Sijui.",  # Swahili: in no list, ranked far over the seven
    "Ne RED, ale AMBER.",  # Slovak
    "Ingen aning.",
    "Vet inte.",
    "Ei tietoa.",
    "Weet nie.",  # Afrikaans
]
#: Short sentences of the supported languages, with words rare enough to trouble the detector.
SHORT_OURS = [
    "Severity: HIGH.",
    "Bewertung: AMBER.",
    "Beoordeling: AMBER.",
    "Conclusie: AMBER.",
    "Konfidenz: HIGH",
    "Einstufung: MEDIUM",
    "Lo calificaría de HIGH.",
    "Si ELEVATED, alerter.",
    "Undetermined.",
    "Genau.",
    "Oui, AMBER.",
    "Keine Ahnung.",
    "No idea.",
    "Dunno.",
    "Klopt.",
    "Claro.",
    "Hanover 0.45 qt/hr: ELEVATED.",
    "NO\u01a6MAL? No, ELEVATED.",  # a label with a look-alike letter is no word
]


@pytest.mark.parametrize("text", SHORT_FOREIGN)
def test_a_short_sentence_with_a_word_of_another_language_is_undetermined(text: str) -> None:
    assert _unsupported(detect(text)), detect(text)
    for kind in ("refusal", "not-refusal"):
        c = compile_assertion(Assertion(type=kind)).check(text)
        assert c.outcome is CheckOutcome.UNDETERMINED and c.unread is Unread.LANGUAGE, (text, c.reason)
    label = {"type": "label", "value": "AMBER", "labels": ["RED", "AMBER", "GREEN"]}
    c = compile_assertion(Assertion.model_validate(label)).check(text)
    assert c.outcome is CheckOutcome.UNDETERMINED, (text, c.reason)


@pytest.mark.parametrize("text", SHORT_OURS)
def test_a_short_sentence_of_the_seven_stays_read_whatever_the_detector_ranks_first(text: str) -> None:
    assert detect(text) in (None, *SUPPORTED_LANGUAGES), text


def test_a_first_choice_that_is_a_guess_among_many_yields_to_a_supported_language_further_down() -> None:
    # Catalan first at 0.05, English fifth or later at 0.04: close behind, so English
    assert detect("The pilots report AMBER.") == "en"
    # a first choice less unsure keeps its place ("Non o sei ben.": Galician at 0.34)
    assert _unsupported(detect("Non o sei ben."))


def test_the_word_lists_read_are_latin_scripts_and_a_list_that_needs_a_tokenizer_reads_as_absent() -> None:
    from proctor.graders._languages import _listed, _zipf

    assert {"ja", "ko", "zh"}.isdisjoint(_listed()) and {"sv", "fi", "tr"} <= _listed()
    assert _zipf("test", "ja") == 0.0  # MeCab is not installed: no error, no word


def test_a_field_list_in_markdown_is_graded_without_error() -> None:
    # a short line whose likeliest languages once reached the Japanese list (MeCab missing): an
    # error of the grader, not a verdict
    text = "**Classificatie:** AMBER\n\n* verschil: 68 stuks (5,5 %)\n* waarde: € 6.392"
    label = {"type": "label", "value": "AMBER", "labels": ["GREEN", "AMBER", "RED"]}
    c = compile_assertion(Assertion.model_validate(label)).check(text)
    assert c.outcome is CheckOutcome.PASS, c.reason


def test_a_short_sentence_every_word_of_another_language_is_undetermined_whatever_ranks_first() -> None:
    assert detect("Inte PAY, snarare AMBER.") == "sv"  # Nynorsk first, then Italian; both words Swedish
    assert detect("Bence AMBER.") == "tr"  # English first
    assert detect("Lactate is red.") in (None, "en")  # "red" is English
    # the model reads no language at all (zxx) in a word that the Czech list knows well
    assert detect("Lze AMBER.") == "cs"


def _common_foreign_words(lang: str) -> list[str]:
    """Common words of ``lang`` (wordfreq's 400 most frequent, three letters or more) that are ten
    times as frequent there as in any of the seven: the words a sentence of that language is made of."""
    from wordfreq import top_n_list

    from proctor.graders._languages import FOREIGN_ZIPF, _zipf, _zipf_supported

    return [
        w
        for w in top_n_list(lang, 400, wordlist="small")
        if len(w) >= 3 and w.isalpha() and _zipf(w, lang) >= _zipf_supported(w) + FOREIGN_ZIPF
    ]


FOREIGN_WORDS = {
    lang: _common_foreign_words(lang) for lang in ("sv", "fi", "pl", "tr", "hu", "cs", "ro", "id", "da")
}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(FOREIGN_WORDS)), st.data())
def test_any_short_sentence_of_a_languages_own_words_is_never_read_by_the_seven(
    lang: str, data: st.DataObject
) -> None:
    # property: one or two common words of a language without rules, around a label, among the
    # three listed languages the model ranks highest (where the model knows nothing of the words, it
    # ranks the lists alike and may not reach that one: "Nem AMBER.", Hungarian, is still read)
    words = data.draw(st.lists(st.sampled_from(FOREIGN_WORDS[lang]), min_size=1, max_size=2))
    text = " ".join([words[0].capitalize(), "AMBER", *words[1:]]) + "."
    assume(lang in _likeliest_listed(_NOT_WORDS.sub(" ", text)))
    assert _unsupported(detect(text)), (text, detect(text))
    label = {"type": "label", "value": "AMBER", "labels": ["RED", "AMBER", "GREEN"]}
    c = compile_assertion(Assertion.model_validate(label)).check(text)
    assert c.outcome is CheckOutcome.UNDETERMINED, (text, c.reason)


@pytest.mark.parametrize(
    "text",
    [
        "Baixámos a classificação para AMBER depois de ler o relatório dos peritos.",
        "É ponto assente entre os técnicos que a fuga é antiga.",
        "O armazém registou a entrada das paletes na terça-feira à tarde.",
    ],
)
def test_european_portuguese_ranked_galician_first_is_read_as_portuguese(text: str) -> None:
    # the model ranks Galician 0.55 to 0.61 and Portuguese close behind: not sure of its neighbour
    assert detect(text) == "pt", text


def test_galician_itself_stays_galician() -> None:
    assert detect("A auga está moi fría e non hai ningunha mostra no informe.") == "gl"
    assert detect("Non o sei, os documentos non din nada diso.") == "gl"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # short words each common in some supported language, but all only in another
        ("Nu HIGH, ci VERY_HIGH.", "ro"),
        ("Nu CLOSURE, ci CONDITIONAL_PASS.", "ro"),
        # twins: short sentences of the supported languages stay theirs (or too short to tell)
        ("Nu RED.", None),
        ("Pas HIGH, mais MEDIUM.", None),
        ("Non HIGH ma LOW.", None),
        ("Geen HIGH, wel LOW.", None),
        ("Ni HIGH ni LOW.", None),
        ("Es HIGH, no LOW.", None),
    ],
)
def test_short_words_common_together_only_in_another_language_are_that_language(
    text: str, expected: str | None
) -> None:
    assert detect(text) == expected


def test_a_short_unsupported_answer_gets_no_confident_label() -> None:
    labels = ["HIGH", "VERY_HIGH"]
    c = compile_assertion(Assertion(type="label", value="VERY_HIGH", labels=labels)).check(
        "Nu HIGH, ci VERY_HIGH."
    )
    assert c.outcome is CheckOutcome.UNDETERMINED, c.reason


def _common_words_of(lang: str) -> list[str]:
    """Words of two letters or more common in ``lang`` (wordfreq's 300 most frequent)."""
    from wordfreq import top_n_list, zipf_frequency

    top = top_n_list(lang, 300, wordlist="small")  # the list the rule reads
    return [w for w in top if len(w) >= 2 and w.isalpha() and zipf_frequency(w, lang, "small") >= COMMON_ZIPF]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(SUPPORTED_LANGUAGES)), st.data())
def test_short_words_all_common_in_a_supported_language_are_never_taken_for_another(
    lang: str, data: st.DataObject
) -> None:
    # the rule that reads "Nu HIGH, ci VERY_HIGH." as Romanian never takes a supported language's
    # own short sentence for an unsupported one
    words = data.draw(st.lists(st.sampled_from(_common_words_of(lang)), min_size=2, max_size=2))
    text = f"{words[0].capitalize()} HIGH, {words[1]} LOW."
    assert _common_only_in(text) is None


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The residents' committee approved it at its 3 March meeting, seconded by M. Reyes.", "en"),
        ("Dr. Okafor agreed with the plan we drew up.", "en"),
        ("Il dott. Bianchi è d'accordo con il piano.", "it"),
        ("Prof. H. Okoro hat die Messung bestätigt.", "de"),
    ],
)
def test_an_initial_or_a_titles_point_ends_no_sentence(text: str, language: str) -> None:
    # "Reyes." alone ranks Walloon, "Okafor agreed." Nigerian Pidgin: the name is no sentence
    (only,) = languages(text).sentences
    assert only.language == language


def test_a_point_before_a_new_sentence_still_ends_one() -> None:
    found = languages("La bande est B. Ensuite, on recontrôle.").sentences
    assert len(found) == 1  # a one-letter label before a capital reads as an initial: one sentence
    two = languages("The grade is final. Then we left the site.").sentences
    assert [s.language for s in two] == ["en", "en"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Mrs Nguyen agreed.", "en"),
        ("Ms Kowalczyk agreed to it.", None),  # no longer Polish: too few words left to tell
        ("Herr Kowalczyk ist einverstanden.", "de"),
        ("Der Verbrauch liegt im Bereich Normal.", "de"),  # a German noun is no name
        ("Dokumenty nie podają tej wartości.", "pl"),  # a first word is kept
        ("Pani Kowalczyk się zgadza.", "pl"),
    ],
)
def test_a_name_after_a_sentences_first_word_says_nothing_of_its_language(
    text: str, language: str | None
) -> None:
    assert detect(text) == language
