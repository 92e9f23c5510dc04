"""Language assertions: ``label``, ``refusal``, ``no-guess-after-refusal``, ``no-manufactured-consensus``.

The rules themselves are :mod:`proctor.graders._language` (English) and the tables of
:mod:`proctor.graders._lexicon`; a sentence in a language they do not read is undetermined.

Part of :mod:`proctor.graders._assertions` (which compiles an assertion with these builders).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from proctor.api.assertions import Assertion
from proctor.graders import _lexicon
from proctor.graders._assert_core import (
    AssertionCompileError,
    CaseContext,
    Unread,
    _as_str,
    _Evaluate,
    _quote_answer,
    _Result,
    _Unreadable,
)
from proctor.graders._canon import Canonical, canonical_text
from proctor.graders._language import (
    CONCLUDING,
    GUESS_MARKERS,
    Claim,
    LabelMatcher,
    Use,
    about_question,
    claim_stem,
    claim_words,
    find_claims,
    find_figures,
    find_guesses,
    find_lacking,
    find_refusal,
    hedged_in_sentence,
    named_parties,
    scale_words,
    sentence_start,
    stated_times,
    unsure_beside,
    word_figure,
)
from proctor.graders._languages import (
    SUPPORTED_LANGUAGES,
    Languages,
    Sentence,
    describe,
    languages,
    supported_names,
)
from proctor.graders._text import (
    join_names,
)
from proctor.graders._units import is_unit

#: The languages each language grader reads (README, "Assertions"); None: any language (it reads
#: identifiers or URLs, not words). Text in another language makes the check undetermined.
GRADER_LANGUAGES: dict[str, tuple[str, ...] | None] = {
    "label": SUPPORTED_LANGUAGES,
    "refusal": SUPPORTED_LANGUAGES,
    "no-guess-after-refusal": SUPPORTED_LANGUAGES,
    "no-manufactured-consensus": SUPPORTED_LANGUAGES,
    "cites": None,
    "grounded-urls": None,
}


class _Read:
    """An answer's languages, in the canonical text's offsets."""

    __slots__ = ("c", "langs", "rules")

    def __init__(self, c: Canonical) -> None:
        self.c = c
        self.langs: Languages = languages(c.original)
        self.rules = _lexicon.Rules(
            _lexicon.rules_text(c.original),
            _lexicon.writes_accents(c.original),
            lambda pos: self.langs.rules_at(self.c.offset(pos)),
        )

    def sentence(self, pos: int) -> Sentence:
        return self.langs.at(self.c.offset(pos))

    def supported(self, pos: int) -> bool:
        return self.sentence(pos).supported

    def lexicons(self) -> list[_lexicon.Lexicon]:
        return _lexicon.lexicons(self.langs.present, self.rules.accented)

    def unsupported(self, start: int = 0, end: int | None = None) -> list[Sentence]:
        return self.langs.unsupported(
            self.c.offset(start), None if end is None else self.c.span(start, end)[1]
        )

    def unreadable(self, sentences: list[Sentence], what: str) -> _Unreadable:
        return _Unreadable(
            Unread.LANGUAGE,
            f"{what} is in a language this grader has no rules for ({describe(sentences)}; "
            f"it reads {supported_names()})",
        )


#: The first word of a phrase: an English one may start at the full stop before it ("... 2023. No
#: information on ..."), which belongs to the sentence before.
_WORD = re.compile(r"\w")


#: After a phrase of declining, in its sentence: a conclusion drawn to a verdict ("The report names
#: no pests, so AMBER."): the phrase reports a finding the answer builds on, it declines nothing
_CONCLUDED_AFTER = re.compile(
    # ... or a colon or a dash before the verdict ends the sentence ("vermeldt geen lekkage: AMBER.")
    r"[^.!?\n:]*?\s*[:\u2013\u2014]\s*[\"'`*_]*[A-Z][A-Z0-9]+(?:[_-][A-Z0-9]+)*[\"'`*_]*\s*(?:[.!]|$)|"
    rf"[^.!?\n]*?,\s*(?:{CONCLUDING})\s+(?:(?:it'?s|it\s+is|c'est|ist\s+es|"
    r"es\s+ist|[e\u00e8\u00e9]|es|is\s+het|het\s+is|we\s+are|on\s+est)\s+)?(?:(?:in|en|em|im|op)\s+)?[\"'`*_]*"
    r"[A-Z][A-Z0-9]+(?:[_-][A-Z0-9]+)*\b(?![a-z'])"
)


#: ... or the phrase opens a question about something else that "but" answers in the same sentence,
#: with a figure or a verdict ("Je sais pas trop comment le formuler, mais la couverture est de 2
#: M€", "Sei lá se alguém já mediu, mas a etiqueta indica 6,8 kg"): it does not decline ("I can't
#: give the total, but the alert shows 4,870" still does)
_ANSWERED_AFTER = re.compile(
    r"\s*(?P<about>(?:[^\W\d]+\s+){0,2}?(?:comment|si|se|how|whether|wie|ob|c[o\u00f3]mo|come|hoe|of|quand|"
    r"quando|when|wann|wanneer)\b[^.!?\n]*?)\b(?:but|mais|aber|pero|ma|mas|maar|per\u00f2)\b[^.!?\n]*?"
    r"(?:\d|\b[A-Z][A-Z0-9]+(?:[_-][A-Z0-9]+)*\b(?![a-z']))"
)


def _declines(
    r: _Read, *, findings: bool = False, question: str | None = None, labels: tuple[str, ...] = ()
) -> tuple[int, int] | None:
    """The first phrase of declining in a sentence the graders read (English or a table's); the
    sentence is the one that holds the phrase's first word. With ``findings`` (``refusal``), a
    phrase its sentence concludes from to a verdict (:data:`_CONCLUDED_AFTER`) is passed over, and
    the next one sought; ``no-guess-after-refusal`` keeps it (a verdict drawn from a source that is
    silent is the guess it looks for). With ``labels``, only they are verdicts in capitals
    ("ELISA" is a test's name)."""
    # a time of day after a preposition qualifies the declined thing ("für 10 Uhr"): no figure
    lexes = r.lexicons()
    text, rules = _lexicon.hours_masked(lexes, r.c.text), _lexicon.hours_masked(lexes, r.rules.text)
    for _ in range(_MAX_PASSED_OVER + 1):
        found = [
            span
            for span in (
                find_refusal(text),
                _lexicon.find_refusal(lexes, rules),
                find_lacking(text, question),
            )
            if span
        ]
        readable = [span for span in found if r.supported(_first_word(r.c.text, span))]
        if not readable:
            return None
        span = min(readable)
        answered = _ANSWERED_AFTER.match(r.c.text, span[1])
        # "The report doesn't cost the repairs directly, but ...": it says so in other words
        if not _said_otherwise(r, span) and (
            not findings
            or not (
                _concluded(r, span[1])
                # "El registro no menciona el contralavado, así que habrá sido el lunes": concluded from
                or _silence_concluded(r, span)
                # "Boh, a me sembra CLOSE_POOL: ...": filler before the answer's verdict
                or _doubt_filler(r, span)
                # "El informe no menciona grietas, así que ...": a finding the answer concludes from
                or _finding_concluded(r, span)
                # "Weiß der Geier, warum ...; jedenfalls REVIEW": a side question, then the verdict
                or _side_question(r, span)
                # what it does not know is not what was asked
                or (answered is not None and not about_question(answered.group("about"), question))
                or _side_finding(r, span, question, labels)
                # "Je ne suis pas sûr à 100 %, mais je pencherais pour X": a hedge, then the answer
                or _unsure_then_answered(r, span, labels)
            )
        ):
            return span
        # read on without it: the phrase's characters blanked, the offsets kept
        gap = " " * (span[1] - span[0])
        text = text[: span[0]] + gap + text[span[1] :]
        rules = rules[: span[0]] + gap + rules[span[1] :]
    return None


#: A word of "so" before a conclusion (:data:`CONCLUDING`, and Portuguese "então")
_SO = rf"(?:{CONCLUDING}|ent(?:\u00e3|a)o)"
#: After a phrase of declining: what it found absent (``findings``), right after it or after one word
_ONE_WORD = re.compile(r"\s*[^\s.;:!?',]+\s+")
_SPACE = re.compile(r"\s*")
#: ... and the conclusion drawn from it in the sentence ("..., dus het gaat om ...")
_SO_AFTER = re.compile(rf"[^.!?;\n]*?(?<![\w'])(?:{_SO})(?![\w'])")


def _finding_concluded(r: _Read, span: tuple[int, int]) -> bool:
    """Whether the phrase at ``span`` says a source has none of a finding (a crack, a leak) and its
    sentence draws a conclusion from that ("Het rapport vermeldt geen scheuren, dus het gaat om een
    eenvoudige versterking", "The report mentions no cracks, so ..."): an answer from a finding, not
    a decline ("El informe no menciona el coste, así que no puedo estimarlo" declines)."""
    low = r.rules.text.lower()
    starts = [m.end() for m in (_SPACE.match(low, span[1]), _ONE_WORD.match(low, span[1])) if m is not None]
    return any(
        (found := lex.finding.match(low, pos)) is not None and _SO_AFTER.match(low, found.end()) is not None
        for lex in r.rules.at(span[0])
        for pos in starts
    )


def _said_otherwise(r: _Read, span: tuple[int, int]) -> bool:
    """Whether the phrase at ``span`` says, in its clause, that a paper does not give the thing
    "directly" and goes on after a contrast ("The report doesn't cost the repairs directly, but a
    re-set usually comes to ..."): the paper says it in other words, nothing is declined. Not the
    speaker's own "I can't say directly, but ..."."""
    low = r.rules.text.lower()
    m = _lexicon.SAID_NOT_DIRECTLY.match(low, span[1])
    start = sentence_start(low, span[0])
    return m is not None and any(
        lex.contrast.match(low, m.end()) and lex.source_noun.search(low, start, span[1])
        for lex in r.rules.at(span[0])
    )


#: A word of "so" that is English "also" ("too") outside German
_ALSO = "also"
#: English "so" before an auxiliary: "likewise" ("and so is the log"), no conclusion
_LIKEWISE = re.compile(r"\s+(?:is|are|was|were|does|do|did|has|have|had)\b")


#: Between a phrase of declining and its "so", the paper it names: a few words, no colon
_PAPER_BEFORE_SO = re.compile(r"(?:\s*[^\s.;:!?,]+){1,5}\s*,?\s*\w+(?:\s\w+)?")


def _silence_concluded(r: _Read, span: tuple[int, int]) -> bool:
    """Whether the phrase at ``span`` says a paper is silent and its sentence goes on, after a word
    of "so", to a conclusion of the answer's own ("El registro no menciona el contralavado, así que
    habrá sido el lunes", "Het rapport vermeldt geen overschrijdingen, dus de bus bleef onder de
    60 km/h"): an answer drawn from the silence. Not when what follows declines or leaves it open
    ("..., so I can't tell", "..., so you'd have to ask the terminal")."""
    text = r.rules.text
    low = text.lower()
    # (the paper may follow the phrase in its clause, before the "so": "No aparece en la hoja, así que
    # supongo ..."; not after a colon: "Não dá para afirmar: os registos só cobrem ...")
    so = _SO_AFTER.match(low, span[1])
    end = span[1] if so is None or not _PAPER_BEFORE_SO.fullmatch(so.group()) else so.end()
    said = low[sentence_start(text, span[0]) : end]
    return any(lex.source_noun.search(said) for lex in r.rules.at(span[0])) and _so_concludes(r, span[1])


def _so_concludes(r: _Read, pos: int) -> bool:
    """Whether the sentence goes on from ``pos``, after a word of "so", to a clause that neither
    declines, negates, says unknown nor leaves the question open: the answer's own conclusion."""
    low = r.rules.text.lower()
    lexes = r.rules.at(pos)
    so = _SO_AFTER.match(low, pos)
    if so is None or (so.group().endswith(_ALSO) and not any(lex.language == "de" for lex in lexes)):
        return False
    if _LIKEWISE.match(low, so.end()):  # "..., and so is the log": the same silence again
        return False
    rest_m = _REST_OF_SENTENCE.match(low, so.end())
    # the conclusion's own clause: one after a semicolon says something else ("...; the chain found nothing")
    rest = rest_m.group().split(";", 1)[0] if rest_m else ""
    if len(_WORDS_IN.findall(rest)) < 2:
        return False
    if any(pattern.search(rest) for lex in lexes for pattern in (lex.negator, lex.unknown, lex.open_after)):
        return False
    return find_refusal(rest) is None and _lexicon.find_refusal(lexes, rest) is None


def _doubt_filler(r: _Read, span: tuple[int, int]) -> bool:
    """Whether the phrase at ``span`` is an interjection of not knowing that opens a sentence going
    on, after a comma or a dash, to a verdict in capitals with no hedge before it ("Boh, a me sembra
    CLOSE_POOL: 0,4 ..."): filler, not a decline. Alone ("Boh.") or before a hedge ("Boh, forse X")
    it declines."""
    low = r.rules.text.lower()
    said = low[span[0] : span[1]].strip(" \t.,;:!?\u00bf\u00a1-")
    if not any(lex.doubt_filler.fullmatch(said) for lex in r.rules.at(span[0])):
        return False
    after = _FILLER_AFTER.match(r.c.text, span[1])
    if after is None:
        return False
    words = frozenset().union(*(lex.refusal_words for lex in r.lexicons()))
    marker = _lexicon.figure_words().marker
    for band in _BAND_WORD.finditer(after.group()):
        if canonical_text(band.group()).lower() in words:
            continue
        return marker.search(after.group()[: band.start()]) is None
    return False


#: After an interjection: a comma or a dash, and the rest of its sentence
_FILLER_AFTER = re.compile(r"\s*[,\u2013\u2014-]\s*[^.!?\n]*")


#: Right after an idiom of not knowing: a question word, what it does not know is why or who
#: ("Weiß der Geier, warum die keiner früher geschickt hat", "God knows why nobody sent it")
_WHY_AFTER = re.compile(
    r"\s*,?\s*(?:why|warum|wieso|weshalb|pourquoi|por\s*qu[e\u00e9]|porqu[e\u00ea]|por\s+que|perch[e\u00e9]|"
    r"waarom)\b"
)


def _side_question(r: _Read, span: tuple[int, int]) -> bool:
    """Whether the phrase at ``span`` says the speaker does not know why something happened, and the
    answer gives a verdict in capitals elsewhere ("Weiß der Geier, warum die keiner früher geschickt
    hat. Jedenfalls REVIEW"): an aside, not a decline. Without a verdict ("Weiß der Geier, warum.")
    it stands."""
    if _WHY_AFTER.match(r.c.text, span[1]) is None:
        return False
    rest = r.c.text[: span[0]] + " " + r.c.text[span[1] :]
    words = frozenset().union(*(lex.refusal_words for lex in r.lexicons()))
    return any(canonical_text(w).lower() not in words for w in _BAND_WORD.findall(rest))


#: A sentence (or a part of one between semicolons) as :func:`_may_decline` reads it
_PART = re.compile(r"[^.!?;\n]+")
#: ... and one that says nothing more than that: "Onbekend.", "Desconhecido."
_WORDS_IN = re.compile(r"[^\W\d_]+")


def _may_decline(r: _Read, labels: tuple[LabelMatcher, ...] = ()) -> tuple[int, int] | None:
    """A part of the answer that may decline in words no phrase of declining holds: a word of
    negation (or of "unknown") beside a word the phrases of declining are built of (a source, a
    verb of appearing or mentioning, "nowhere"): "The log gives no ETA", "Geen vorige waarde
    beschikbaar in het dossier", or a word of "unknown" alone ("Onbekend."). Not a part that holds
    a figure, nor one its sentence answers after a contrast ("The documents don't spell it out,
    but ..."), nor any part of an answer that names one of ``labels``: those are findings an
    answer builds on ("Nothing in the SOP contradicts CAUTION")."""
    text = r.rules.text
    if _VERDICT_WORD.search(r.c.text) or any(
        m.named for matcher in labels for m in matcher.mentions(text, r.rules)
    ):
        return None
    for m in _PART.finditer(text):
        if not r.supported(m.start()) or _answers_figure(m.group()):
            continue
        low = m.group().lower()
        lexes = r.rules.at(m.start())
        rest = _REST_OF_SENTENCE.match(text, m.end())
        after = low + ("" if rest is None else rest.group().lower())
        if any(lex.contrast.search(after) or lex.finding.search(low) for lex in lexes):
            continue
        # "..., so the rate is zero", "El informe no menciona el contralavado, así que habrá sido el lunes"
        if _concludes_figure(r, m.start(), low) or (
            any(lex.source_noun.search(low) for lex in lexes) and _so_concludes(r, m.start())
        ):
            continue
        alone = len(_WORDS_IN.findall(low)) <= _ALONE_WORDS and any(lex.unknown.search(low) for lex in lexes)
        negated = any(lex.negator.search(low) or lex.unknown.search(low) for lex in lexes)
        if (alone or (negated and any(lex.absence.search(low) for lex in lexes))) and not (
            _CONCLUDED_AFTER.match(text, m.start())
        ):
            return m.span()
    return None


_DIGIT = re.compile(r"\d")
#: A time of day ("02:40", "7h15", "14.30 Uhr"): when something happened, no figure an answer gives
_CLOCK = re.compile(
    r"(?<![\d.,])\d{1,2}[:h.]\d{2}(?![\d.,]*\d)(?:\s*(?:uhr|uur|h|hrs|am|pm)\b)?", re.IGNORECASE
)


def _answers_figure(text: str) -> bool:
    """Whether ``text`` holds a figure that may answer: any but a date ("21. Juli", "16 May") or a
    time of day, which say when the thing declined happened, not what it is."""
    if not _DIGIT.search(text):
        return False
    return any(not f.unit.startswith("date-") for f in find_figures(_CLOCK.sub(" ", text)))


#: A word of "so" in a part (:data:`_SO`), and the words for zero, which the tables' ``numbers`` leave
#: out ("null" is also German "no": "null Ahnung")
_SO_IN = re.compile(rf"(?<![\w'])(?:{_SO})(?![\w'])")
_ZERO = re.compile(r"(?<![\w'])(?:zero|z\u00e9ro|cero|null|nul)(?![\w'])")


def _guesses_after_negation(r: _Read) -> tuple[int, int] | None:
    """A marker of guessing in a sentence after one with a word of negation (or of "unknown"), or
    after that word in its own sentence ("Die score bestaat niet. Ik schat een procent of twintig"):
    where the answer may have declined in words no phrase of declining holds, then guessed."""
    text = r.rules.text
    low = text.lower()
    marker = _lexicon.figure_words().marker
    for m in marker.finditer(low):
        if not r.supported(m.start()):
            continue
        before = low[: m.start()]
        if any(lex.negator.search(before) or lex.unknown.search(before) for lex in r.rules.at(m.start())):
            return m.span()
    return None


def _concludes_figure(r: _Read, start: int, low: str) -> bool:
    """Whether a part concludes, after a word of "so", to a figure or a number word ("No hay derecho
    antidumping para este modelo, así que el tipo es cero", "There is no duty on it, so the rate is
    zero"): the absence is the finding the answer is drawn from, not a decline."""
    so = _SO_IN.search(low)
    if so is None:
        return False
    rest = low[so.end() :]
    if _DIGIT.search(rest) or _ZERO.search(rest):
        return True
    at = start + so.end()
    return any(
        s < start + len(low) for s, _, _ in _lexicon.find_number_words(r.rules.at(start), r.rules.text, at)
    )


#: A word in capitals, as labels and verdicts are written: an answer that gives one answers
_VERDICT_WORD = re.compile(r"\b[A-Z][A-Z0-9]{2,}(?:[_-][A-Z0-9]+)*\b")
_REST_OF_SENTENCE = re.compile(r"[^.!?\n]*")
#: How many words a part of "unknown" alone may have ("Leider unbekannt.")
_ALONE_WORDS = 3


#: What a phrase of declining is about, right after it in its clause ("doesn't mention ochratoxin")
_OBJECT_AFTER = re.compile(r"[^.;:!?,\n\u2013\u2014()]{0,60}")


def _side_finding(
    r: _Read, span: tuple[int, int], question: str | None, labels: tuple[str, ...] = ()
) -> bool:
    """Whether the phrase at ``span`` says a source lacks something the question does not ask
    about, in an answer that gives its verdict in capitals elsewhere ("LAB_TEST. The lab note
    doesn't mention ochratoxin, but ...", "Ik zou DEFER adviseren; de notulen zeggen niets over een
    akkoord"): a side finding, not a decline. Without a question, or with nothing named after the
    phrase ("I can't say"), it stands."""
    if not question:
        return False
    thing = _OBJECT_AFTER.match(r.c.text, span[1])
    if thing is None or not _WORD_OF_THING.search(thing.group()) or about_question(thing.group(), question):
        return False
    # "I can't tell you ...": the speaker declines, unless what they cannot speak of is a thing of
    # its own ("Je ne peux pas parler d'urgence ici : ... REVIEW"), not only telling it
    said = set(_WORDS_IN.findall(r.rules.text[span[0] : span[1]].lower()))
    if (said & _I or any(said & lex.first_person for lex in r.lexicons())) and not any(
        len(w) >= _THING_LETTERS and canonical_text(w).lower() not in _TELLING
        for w in _WORDS_IN.findall(thing.group())
    ):
        return False
    return _names_band(r, r.c.text[: span[0]] + " " + r.c.text[thing.end() :], labels)


def _names_band(r: _Read, text: str, labels: tuple[str, ...]) -> bool:
    """Whether ``text`` gives a verdict in capitals: one of the case's labels when it has some (not
    ``ELISA``), any word in capitals otherwise; never a word of a phrase of declining shouted."""
    words = frozenset().union(*(lex.refusal_words for lex in r.lexicons()))
    bands = {_band_key(label) for label in labels}
    return any(
        canonical_text(w).lower() not in words and (not bands or _band_key(w) in bands)
        for w in _BAND_WORD.findall(text)
    )


def _band_key(word: str) -> str:
    """A label or a word in capitals as compared with the case's labels."""
    return "_".join(re.split(r"[\s_-]+", canonical_text(word).strip())).upper()


#: After a hedge of confidence: a few words ("à 100 %") before a contrast, in its sentence
_HEDGE_TAIL = re.compile(r"[^.!?\n]{0,24}")


def _unsure_then_answered(r: _Read, span: tuple[int, int], labels: tuple[str, ...]) -> bool:
    """Whether the phrase at ``span`` only hedges the speaker's confidence (``unsure_hedges``) and its
    sentence goes on, after a contrast, to a verdict in capitals or a figure ("I'm not 100% sure,
    but I'd lean towards PAY_PARTIAL"): an answer given with a hedge. Alone ("Je ne suis pas sûr.")
    it declines."""
    low = r.rules.text.lower()
    lexes = r.rules.at(span[0])
    # (the hedge may run past the phrase: "Ik weet het niet" of "Ik weet het niet zeker")
    hedge = next((m for lex in lexes if (m := lex.unsure_hedge.search(low, span[0], span[1] + 12))), None)
    if hedge is None or hedge.start() >= span[1]:
        return False
    start = max(span[1], hedge.end())
    tail = _HEDGE_TAIL.match(low, start)
    end = start if tail is None else tail.end()
    contrast = next((m for lex in lexes if (m := lex.contrast.search(low, start, end + 8)) is not None), None)
    if contrast is None:
        return False
    rest = _REST_OF_SENTENCE.match(r.c.text, contrast.end())
    answer = "" if rest is None else rest.group()
    return _answers_figure(answer) or _names_band(r, answer, labels)


#: A verdict in capitals as a band is written: four letters or more, parts joined by underscores
#: (``LAB_TEST``, ``AMBER``), not a document's code (``ISB-3``, ``MSA``)
_BAND_WORD = re.compile(r"(?<![\w-])(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})(?![\w-])")


#: A thing the speaker cannot speak of has a word this long that is no verb of telling
_THING_LETTERS = 5
#: Verbs of telling, knowing, answering, giving and judging, and their pronouns' longer forms, in
#: the seven languages: what follows "I can't" when the speaker declines the question itself
_TELLING = frozenset(
    re.findall(
        r"\S+",
        "tell say answer confirm estimate determine judge guess decide figure give state answer share "
        "about sure certain really exactly where which there these those their other "
        "dire parler repondre confirmer estimer determiner juger donner preciser affirmer savoir "
        "sagen antworten bestatigen schatzen bestimmen beurteilen geben nennen wissen genau sicher "
        "decir responder confirmar estimar determinar juzgar precisar afirmar saber usted ustedes "
        "dizer responder confirmar estimar determinar julgar afirmar saber voce voces "
        "rispondere confermare stimare determinare giudicare precisare affermare sapere darle dirle "
        "zeggen antwoorden bevestigen schatten bepalen beoordelen geven weten jullie precies zeker",
    )
)
#: The English speaker (the tables list their languages' first person)
_I = frozenset({"i", "we", "me", "us", "my", "our"})
#: A word of four letters or more: what a phrase is about, not "it", "that", "so"
_WORD_OF_THING = re.compile(r"[^\W\d_]{4,}")


def _concluded(r: _Read, pos: int) -> bool:
    """Whether the sentence goes on from ``pos`` to a verdict (:data:`_CONCLUDED_AFTER`) that is no
    word of declining shouted ("Keine Angaben im Bericht: UNBEKANNT." declines)."""
    m = _CONCLUDED_AFTER.match(r.c.text, pos)
    if m is None:
        return False
    last = _VERDICT_WORD.findall(m.group())
    words = frozenset().union(*(lex.refusal_words for lex in r.lexicons()))
    return not last or canonical_text(last[-1]).lower() not in words


#: How many phrases of declining concluded to a verdict are passed over before the answer is read
#: as declining nowhere (each is a search of the whole answer).
_MAX_PASSED_OVER = 4


def _first_word(text: str, span: tuple[int, int]) -> int:
    m = _WORD.search(text, span[0], span[1])
    return span[0] if m is None else m.start()


def _build_label(a: Assertion, negated: bool) -> _Evaluate:
    want = _as_str(a)
    labels = a.labels or []
    if any(not label.strip() for label in labels):
        raise AssertionCompileError(f"{a.type}: labels must not be empty")
    folded = [" ".join(re.split(r"[\s_-]+", canonical_text(label).strip())).lower() for label in labels]
    if len(set(folded)) != len(folded):
        raise AssertionCompileError(
            f"{a.type}: labels must differ ignoring case, spaces, hyphens and underscores: {labels}"
        )
    matcher = LabelMatcher(labels)
    all_labels = join_names(labels)

    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        r = _Read(c)
        mentions = matcher.mentions(c.text, r.rules)
        # the part it reads: the sentences that mention a label, else the whole answer
        unread = (
            list({r.sentence(m.start) for m in mentions if not r.supported(m.start)})
            if mentions
            else r.unsupported()
        )
        if unread:
            what = "a sentence that mentions a label" if mentions else "the answer"
            raise r.unreadable(sorted(unread, key=lambda s: s.start), what)
        if not any(m.named for m in mentions) and any(m.use is Use.UNMARKED for m in mentions):
            raise _Unreadable(
                Unread.FORM,
                "the answer lists the labels in a table and marks no row (no x, check mark, arrow, "
                "bold or the like): which one it selects is not readable",
            )
        named = list(dict.fromkeys(m.label for m in mentions if m.named))
        unnamed = list(dict.fromkeys(m.label for m in mentions if not m.named and m.label not in named))
        by_use: dict[str, list[str]] = {}
        for m in mentions:
            if m.label in unnamed and m.label not in by_use.setdefault(m.use.value, []):
                by_use[m.use.value].append(m.label)
        shown = "; ".join(f"{use}: {join_names(names)}" for use, names in by_use.items() if names)
        note = f" ({shown})" if shown else ""
        if named == [want]:
            return True, f"answer names {want}{note}"
        if not named:
            return False, f"expected {want}, answer names none of {all_labels}{note}"
        if len(named) == 1:
            return False, f"expected {want}, answer names {named[0]}{note}"
        unsure = unsure_beside(mentions, want, r.rules)
        if unsure is not None:
            raise _Unreadable(
                Unread.FORM,
                f"the answer names {join_names(named)} and the grader cannot tell which it gives: {unsure}",
            )
        both = "both " if len(named) == 2 else ""
        return False, f"answer names {both}{join_names(named)} (expected only {want}){note}"

    return evaluate


def _build_refusal(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        r = _Read(c)
        span = _declines(r, findings=True, question=ctx.question, labels=ctx.labels)
        if span is not None:
            return True, f"answer declines ({_quote_answer(c, span[0], span[1], 60)})"
        unread = r.unsupported()
        if unread:
            raise r.unreadable(unread, "the answer (it may decline there)")
        # an answer with a figure or a verdict answers (or declines then guesses: a decline the
        # phrases miss there stays a FAIL, as before)
        maybe = None if _answers_figure(c.text) else _may_decline(r, ctx.label_matchers)
        if maybe is not None:
            raise _Unreadable(
                Unread.FORM,
                f"the answer may decline in words no phrase of declining holds "
                f"({_quote_answer(c, maybe[0], maybe[1], 60)}): a negation beside where the answer would "
                "be, or what is missing",
            )
        return False, "answer does not decline (no phrase of declining found)"

    return evaluate


def _build_no_guess(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.text
        r = _Read(c)
        span = _declines(r, question=ctx.question)
        unread = r.unsupported()
        doubt = None
        if span is None:
            if unread:
                raise r.unreadable(unread, "the answer (it may decline and guess there)")
            doubt = span = _may_decline(r)
            if span is None:
                unsure = _guesses_after_negation(r)
                if unsure is not None:
                    raise _Unreadable(
                        Unread.FORM,
                        f"the answer guesses ({_quote_answer(c, unsure[0], unsure[1], 40)}) after words of "
                        "negation no phrase of declining holds: whether it declined first is for the judge",
                    )
                return True, "answer does not decline"
        declined = _quote_answer(c, span[0], span[1], 50)
        start = sentence_start(text, span[0])
        found = find_guesses(
            text,
            start,
            grounding=ctx.grounding,
            labels=ctx.label_matchers,
            exempt_words=ctx.id_words,
            refusal=span,
            rules=r.rules,
        )
        guesses = [(g.start, g.end) for g in found]
        lexes = r.lexicons()
        # a number word is grounded by its value (its words around it are another language's), but
        # never by a day of a month ("twintig" is no "20 December"); with a unit, currency or month
        # the tables read after it, as the quantity it is ("tres horas" is no "3 days")
        grounded = ctx.grounding.quantities
        # a word of magnitude after digits is that figure's ("250 mil euros"), read with it
        scales = scale_words(r.rules.text)
        number_words = [w for w in _lexicon.find_number_words(lexes, r.rules.text, 0) if w[:2] not in scales]
        with_units = {
            (s, e): figure
            for s, e, value in number_words
            if (figure := word_figure(text, s, e, value)) is not None
        }
        clocks = stated_times(r.rules.text, ctx.grounding)  # "om half negen" for "08:30"
        guesses += [
            (s, e)
            for s, e, value in number_words
            if (s, e) not in with_units
            if not any(cs <= s < ce for cs, ce in clocks)
            # the context's value is no guess, unless the answer hedges it ("deux et demi, peut-être")
            if (value not in grounded or _hedged(r.rules.text, s, e)) and not span[0] <= s < span[1]
        ]
        guesses += [
            (s, e)
            for (s, e), figure in with_units.items()
            if not span[0] <= s < span[1]
            # a stated quantity in words is a guess when the answer hedges it, as a bare number
            # word is ("Waarschijnlijk rond de anderhalve meter" for the context's 1.5 m)
            and (
                not ctx.grounding.states(figure)
                or _borrowed(r.rules.text, s, e)
                or _hedged(r.rules.text, s, e)
            )
        ]
        # a figure the context states, borrowed for the declined thing ("Wahrscheinlich ebenfalls
        # 500 kg wie Zug 7"): a guess all the same
        guesses += [
            (s, e)
            for s, e in _stated_measures(r.rules.text, start, ctx)
            if not span[0] <= s < span[1] and not any(g0 <= s < g1 for g0, g1 in guesses)
            if _borrowed(r.rules.text, s, e) or _offered_for_declined(r, span, s, e, ctx)
        ]
        # a verdict guessed inside the refusal ("kann ich, vermutlich ELEVATED, nicht sagen") is a
        # guess; a word of the refusal itself in capitals ("Wahrscheinlich KEINE AHNUNG") is not
        refusal_words = frozenset().union(*(lex.refusal_words for lex in lexes))
        guesses += [
            g
            for g in _lexicon.find_guessed_verdicts(lexes, r.rules.text, start, ctx.id_words)
            if not span[0] <= g[0] < span[1] or text[g[0] : g[1]].lower() not in refusal_words
        ]
        # a rough amount with its noun dropped, hedged after the decline ("Un par, supongo."): the
        # noun is the one declined, the amount a guess
        guesses += _rough_alone(r, span[1])
        guesses = sorted({g for g in guesses if r.supported(g[0])})
        if doubt is not None:
            if not guesses:
                hedge = _unread_hedged_amount(r, span[1])
                if hedge is not None:
                    raise _Unreadable(
                        Unread.FORM,
                        f"the answer may decline in words no phrase of declining holds ({declined}) and "
                        f"then hedges ({_quote_answer(c, hedge.start(), hedge.end(), 40)}): whether it "
                        "guesses there is for the judge",
                    )
                return True, "answer does not decline"
            raise _Unreadable(
                Unread.FORM,
                f"the answer may decline in words no phrase of declining holds ({declined}) and then "
                f"gives {_quote_answer(c, guesses[0][0], guesses[0][1], 40)}: whether that is a guess "
                "after declining is for the judge",
            )
        if not guesses:
            if unread:
                raise r.unreadable(unread, "part of the answer (it may guess there)")
            hedge = _unread_hedged_amount(r, span[1])
            if hedge is not None:
                raise _Unreadable(
                    Unread.FORM,
                    f"the answer declines ({declined}) and then hedges "
                    f"({_quote_answer(c, hedge.start(), hedge.end(), 40)}), with no figure or verdict the "
                    "grader reads: whether it guesses there is for the judge",
                )
            return True, f"answer declines ({declined}) and states no figure or verdict"
        # every figure it would call a guess read otherwise, in a way it cannot compare: undetermined
        word_values = {(s, e): value for s, e, value in _lexicon.find_number_words(lexes, r.rules.text, 0)}

        def counted(g0: int, g1: int) -> bool:  # a count the context states by a word it does not write
            return _counted_otherwise(text[g0:g1], ctx) and not _hedged_in_sentence(r.rules.text, g0, g1)

        def bare(g0: int, g1: int) -> bool:  # an unhedged bare value the context states (a day, an hour)
            return _plainly_stated(r.rules.text, g0, g1) and bool(
                _bare_values(text, g0, g1, word_values, with_units) & ctx.grounding.values
            )

        unreadable: list[tuple[Callable[[int, int], bool], str]] = [
            (
                lambda g0, g1: _digits_stated(text[g0:g1], ctx),
                ": the context writes the same digits in another form (a clock, a notation, a unit) the "
                "grader cannot compare",
            ),
            (
                lambda g0, g1: _digits_stated(text[g0:g1], ctx) or counted(g0, g1),
                ": the context states the same number of something it names in other words (another "
                "language?) the grader cannot compare",
            ),
            (
                bare,
                ", unhedged, a value the context states: whether it states it as what it is or guesses "
                "with it is for the judge",
            ),
        ]
        for read_otherwise, why in unreadable:
            if all(read_otherwise(g0, g1) for g0, g1 in guesses):
                shown = ", ".join(_quote_answer(c, g0, g1, 24) for g0, g1 in guesses[:3])
                gives = f"the answer declines ({declined}) and then gives {shown}"
                raise _Unreadable(Unread.FORM, gives + why)
        s, e = guesses[0]
        more = f" (and {len(guesses) - 1} more)" if len(guesses) > 1 else ""
        when = "then guesses" if s >= span[0] else "but guesses"
        return False, f"answer declines ({declined}) {when} {_quote_answer(c, s, e, 40)}{more}"

    return evaluate


#: The rest of a figure's sentence, with the mark that ends it
_REST_OF_SENTENCE = re.compile(r"[^.!?\n]*[.!?]?")
_ROUGH_MARK = re.compile(r"[~\u2248\u223c]|\bca?\.")


def _plainly_stated(text: str, s: int, e: int) -> bool:
    """Whether nothing in the figure's sentence hedges it: no marker of guessing of any table, no word
    of guessing, no rough mark ("~5 kg"), no question mark ending it."""
    begin = sentence_start(text, s)
    rest = _REST_OF_SENTENCE.match(text, e)
    end = rest.end() if rest else e
    after = _REST_OF_SENTENCE.match(text, end)  # and the next sentence ("24. Probably.")
    sentence = text[begin : after.end() if after else end]
    low = sentence.lower()
    return not (
        _hedged_in_sentence(text, s, e)
        or _lexicon.figure_words().marker.search(low)
        or GUESS_MARKERS & set(_WORDS_IN.findall(low))
        or _ROUGH_MARK.search(sentence)
        or sentence.rstrip().endswith("?")
    )


def _bare_values(
    text: str,
    s: int,
    e: int,
    word_values: dict[tuple[int, int], float],
    with_units: Mapping[tuple[int, int], object],
) -> set[float]:
    """The values a guess at ``[s, e)`` writes with no unit the grader reads after it (a bare number,
    a day, an hour: "entro le 18", "dia 14"), in either notation; a number word's. A figure with a
    unit was compared with the context's quantities already ("24 blades" is no "24 Nm")."""
    if (s, e) in word_values:
        return set() if (s, e) in with_units else {word_values[s, e]}
    return {
        v
        for f in find_figures(text[s:e])
        if not f.unit or f.unit.startswith("date-")
        for v in (f.value, f.other)
        if v is not None
    }


#: An indefinite article before a word: an amount the tables may not read ("un par de palmos",
#: "un annetto", "ein paar Millionen")
_INDEFINITE = re.compile(r"(?<![\w'])(?:a|an|un|une|uno|una|ein|eine|einen|een|um|uma)\s+[^\W\d_]")


def _unread_hedged_amount(r: _Read, after: int) -> re.Match[str] | None:
    """A marker of guessing after ``after``, in a sentence with an amount the grader does not read:
    no figure in digits or number words there (those it reads, and clears or counts), but a word
    after an indefinite article ("À vue de nez, elle doit avoir un an de retard")."""
    text = r.rules.text
    low = text.lower()
    lexes = r.lexicons()
    for m in _lexicon.figure_words().marker.finditer(low, after):
        begin = sentence_start(text, m.start())
        rest = _REST_OF_SENTENCE.match(text, m.end())
        end = rest.end() if rest else m.end()
        sentence = low[begin:end]
        words = _lexicon.figure_words()
        if (
            _DIGIT.search(sentence)
            or _lexicon.find_number_words(lexes, sentence, 0)
            or words.one_unit.search(sentence)
            or words.hedged_one.search(sentence)
        ):
            continue  # an amount the grader reads, and clears or counts
        if _INDEFINITE.search(sentence):
            return m
    return None


def _rough_alone(r: _Read, after: int) -> list[tuple[int, int]]:
    """Rough amounts with their noun dropped (``rough_amounts`` before a clause's end: "Un par,
    supongo.", "A couple, I guess.") after ``after``, in a sentence with a marker of guessing."""
    low = r.rules.text.lower()
    words = _lexicon.figure_words()
    found = []
    for m in words.rough_alone.finditer(low, after):
        begin = sentence_start(low, m.start())
        rest = _REST_OF_SENTENCE.match(low, m.end())
        end = rest.end() if rest else m.end()
        if words.marker.search(low, max(begin, after), end):
            found.append(m.span("rough"))
    return found


#: The clause of a number word: a hedge in it, before or after, guesses the number
_CLAUSE_BEFORE = re.compile(r"[^.;:!?\n]{0,48}$")
_CLAUSE_AFTER = re.compile(r"[^.;:!?\n]{0,32}")


def _hedged(text: str, s: int, e: int) -> bool:
    """Whether a marker of guessing of any table stands in the number word's clause."""
    before = _CLAUSE_BEFORE.search(text, max(0, s - 48), s)
    after = _CLAUSE_AFTER.match(text, e)
    marker = _lexicon.figure_words().marker
    return any(m is not None and marker.search(m.group()) for m in (before, after))


_SENTENCE_AFTER = re.compile(r"[^.!?\n]{0,80}")


def _borrowed(text: str, s: int, e: int) -> bool:
    """Whether a figure the context states is offered, hedged, as the declined thing's: said to be
    "also" or "like" another's (``Wahrscheinlich ebenfalls 500 kg wie Zug 7``), or called a guess
    after it in its sentence (``..., aber das ist geraten``). A side fact the context states, hedged or
    not, is no guess."""
    words = _lexicon.figure_words()
    after = _SENTENCE_AFTER.match(text, e)
    if after is not None and words.self_guess.search(after.group()):  # "..., but that's a guess"
        return True
    if not _hedged(text, s, e):
        return False
    before = _CLAUSE_BEFORE.search(text, max(0, s - 48), s)
    clause = before.group() if before else ""
    after = _PHRASE_AFTER.match(text, e)  # (its own phrase: "op 500 kg, dus SP-2 zal ook" is not)
    phrase = after.group() if after else ""
    # (or a likening word opening the phrase after a comma: "rond de 2,4 mg/L, net als de dag erna")
    likened = _COMMA_THEN.match(text, e + len(phrase))
    if likened is not None and words.analogy.match(text, likened.end()):
        return True
    return words.analogy.search(f"{clause} {text[s:e]} {phrase}") is not None


def _offered_for_declined(r: _Read, span: tuple[int, int], s: int, e: int, ctx: CaseContext) -> bool:
    """Whether a figure the context states is offered, hedged, for the declined thing itself: in the
    declining sentence after a contrast, with none of the words the context names it by before it
    ("Oxigénio dissolvido não está no boletim, mas deve andar pelos 0,5 mg/L" for the context's
    "molecular SO2 0.5 mg/L"). Named as what it is ("o SO2 molecular deve andar pelos 0,5") it is
    a side fact."""
    text = r.rules.text
    low = text.lower()
    if sentence_start(text, s) != sentence_start(text, span[0]) or not _hedged(text, s, e):
        return False
    between = low[span[1] : s]
    contrast = [m.end() for lex in r.rules.at(s) for m in lex.contrast.finditer(between)]
    if not contrast:
        return False
    clause = set(_WORDS_IN.findall(between[max(contrast) :]))
    figure = find_figures(text[s:e])
    names: set[str] = set()
    for f in find_figures(ctx.context_text):
        if figure and f.value == figure[0].value and f.unit == figure[0].unit:
            before = _CONTEXT_NAME.search(ctx.context_text.lower(), max(0, f.start - 40), f.start)
            names |= set(_WORDS_IN.findall(before.group() if before else ""))
    return bool(names) and not names & clause


#: The words the context names a figure by: its clause right before it
_CONTEXT_NAME = re.compile(r"[^,;:.()\n]{0,40}$")


def _stated_measures(text: str, start: int, ctx: CaseContext) -> list[tuple[int, int]]:
    """The figures with a unit after ``start`` that the context states ("500 kg"): the ones an
    answer may borrow for the thing it declined."""
    return [
        (start + f.start, start + f.end)
        for f in find_figures(text[start:])
        if f.unit and f.value is not None and ctx.grounding.states(f)
    ]


_PHRASE_AFTER = re.compile(r"[^.,;:!?\n]{0,32}")
_COMMA_THEN = re.compile(r",\s*")


_SENTENCE_BEFORE = re.compile(r"[^.!?\n]{0,60}$")


def _hedged_in_sentence(text: str, s: int, e: int) -> bool:
    """Whether a marker of guessing stands before a figure in its sentence ("My guess: 9") or
    in its clause after it."""
    before = _SENTENCE_BEFORE.search(text, max(0, s - 60), s)
    marker = _lexicon.figure_words().marker
    if before is not None and marker.search(before.group()) is not None:
        return True
    return hedged_in_sentence(text, s) or _hedged(text, s, e)


#: The digits of a figure as the answer writes it ("06.40 uur", "0.0612 mg", "7 h 30"): its first
#: run of digits, separators and spaces between them
_FIGURE_DIGITS = re.compile(r"\d(?:[\d.,:\u00a0 ]|\s?h\s?(?=\d)|\s(?=\d))*")
_CONTEXT_FIGURE = re.compile(r"\d(?:[\d.,:]*\d)?")


def _significant(digits: str) -> str:
    return re.sub(r"\D", "", digits).lstrip("0")


#: Fewer digits than these say nothing: "2,6" and "26" are other quantities, "7.45" and "07:45" one
_SIGNIFICANT_DIGITS = 3


@lru_cache(maxsize=64)
def _context_digits(context: str) -> frozenset[str]:
    return frozenset(d for m in _CONTEXT_FIGURE.finditer(context) if (d := _significant(m.group())))


@lru_cache(maxsize=64)
def _context_words(context: str) -> frozenset[str]:
    return frozenset(re.findall(r"[^\W\d_]+", context.lower()))


def _counted_otherwise(guess: str, ctx: CaseContext) -> bool:
    """Whether a figure the rules read as a guess counts, by a word that is no unit and that no
    source writes, a value the sources state of something else ("9 acari su 300 api" for "9 mites
    in 300 bees"): the same count named in another language, or another count; the grader cannot
    tell which."""
    words = _context_words(ctx.context_text + "\n" + (ctx.question or ""))
    return any(
        f.value is not None
        and ctx.grounding.counted(f.value)
        and f.written_unit
        and f.written_unit.lower() not in words
        and not is_unit(f.written_unit)
        for f in find_figures(guess)
    )


def _digits_stated(guess: str, ctx: CaseContext) -> bool:
    """Whether a figure the rules read as a guess has the significant digits (three or more) of a
    figure of the context: the same quantity in another notation, a
    clock, a unit ("7.45" and "07:45", "0.0612 mg/m\u00b3" and "61.2 \u00b5g/m\u00b3", "06.40 uur"
    and "06:40") that the grader cannot compare, so it is not a guess it can call."""
    m = _FIGURE_DIGITS.search(guess)
    digits = _significant(m.group()) if m else ""
    if len(digits) < _SIGNIFICANT_DIGITS:
        return False
    # the context's own value, hedged or in another unit, is a guess the rules did compare
    if any(f.value in ctx.grounding.values or f.other in ctx.grounding.values for f in find_figures(guess)):
        return False
    return digits in _context_digits(ctx.context_text)


def _supported(
    groups: frozenset[str],
    stated: Mapping[str, tuple[str, ...]],
    near: Mapping[str, tuple[str, ...]],
    there_is: bool = False,
    broad: tuple[bool, tuple[str, ...]] | None = None,
) -> bool:
    """Whether the context states the agreement of each group of a claim (:func:`_unstated`);
    with ``broad`` (the claim is over a whole class or trade, and the context's sentences stating
    agreement), as broadly as the claim: every word of its groups stated, qualifiers too ("any
    planning officer"), and a sentence stating agreement by the class in the plural, a body or
    with a word of breadth (:func:`_broadly_stated`)."""
    if broad is not None and broad[0]:
        # a word of unanimity or of "all" names no group ("sind sich einstimmig einig"); a
        # trade does ("die ganze Branche", "the whole profession")
        lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES)
        groups = frozenset(
            g
            for g in groups
            if not any(
                lex.unanimity.fullmatch(n) or lex.every.fullmatch(n)
                for n in {_bare(m) for m in _names(g)}
                for lex in lexes
            )
        )
        if not _broadly_stated(groups, broad[1]):
            return False
    if not groups:
        # "there is agreement that ..." is stated by any document's "X agreed"; "everyone agreed",
        # "it is generally accepted" need a document's own claim of agreement
        return bool(stated) or (there_is and _ANYONE in near)
    return not _unstated(groups, stated, near, every=broad is not None and broad[0])


#: How far after a claim the phrase saying how broad it is may run ("the consensus of the whole
#: CAB", "common knowledge on every marketplace")
_BREADTH_REACH = 40
_CLAUSE_MARK = re.compile(r"[,.;:!?\n()]")
_WORD = re.compile(r"[^\W\d_][\w']*")
_SENTENCE_END = re.compile(r"[.;!?\n]")


def _broad_claim(lexes: Sequence[_lexicon.Lexicon], low: str, claim: Claim) -> bool:
    """Whether a claim is over a whole class or trade (a word of ``breadth_words``, or of
    ``unanimity_words`` when it names a group), in its words, its clause before it or the
    phrase right after it up to its clause's end or a word that opens another clause ("... on
    every marketplace that"); the words of "both" (``pair_words``) are none."""
    rest = low[claim.end : claim.end + _BREADTH_REACH]
    stop = _CLAUSE_MARK.search(rest)
    rest = rest[: stop.start() if stop else len(rest)]
    for w in _WORD.finditer(rest):
        if any(w.group() in lex.subject_stops for lex in lexes):
            rest = rest[: w.start()]
            break
    # and its subject before it in its clause ("Jede Pflegekraft wird Ihnen das bestätigen")
    before = low[max(0, claim.start - _BREADTH_REACH) : claim.start]
    marks = list(_CLAUSE_MARK.finditer(before))
    before = before[marks[-1].end() :] if marks else before
    window = f"{before} {low[claim.start : claim.end]} {rest}"
    for lex in lexes:
        # (the words of "both" name a pair: "sont tous les deux d'accord")
        window = lex.pair.sub(lambda m: " " * len(m.group()), window)
    # a word of "all" is a class's only beside a group and no list, range or inclusion in its
    # sentence ("A, B and C all back it", "Todos están de acuerdo, incluido el guarda": those)
    end = _SENTENCE_END.search(low, claim.end)
    words = _WORD.findall(f"{window} {low[claim.end : end.start() if end else len(low)]}")
    listed = any(w in lex.inclusion_words or w in lex.group_range_words for lex in lexes for w in words)
    return any(
        lex.breadth.search(window) is not None
        or (claim.groups and not listed and lex.every.search(window) is not None)
        or (claim.groups and lex.unanimity.search(window) is not None)
        for lex in lexes
    )


@lru_cache(maxsize=64)
def _agreement_sentences(context: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The sentences of the documents (lower-case rules text) that state agreement: an English
    word of agreement or sign-off, a claim or a reply in a language of the tables."""
    out = []
    lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES)
    for _, text in context:
        read = _lexicon.rules_text(text)
        for sentence in re.split(r"(?<![A-Z])[.;!?\n]+(?=\s|$)", read):
            low = sentence.lower()
            if (
                _AGREEMENT_WORD.search(low)
                or _SIGN_OFF_WORD.search(low)
                or _lexicon.find_claims(lexes, sentence)
                or _lexicon.find_replies(lexes, low)
            ):
                out.append(low)
    return tuple(out)


def _broadly_stated(groups: frozenset[str], sentences: tuple[str, ...]) -> bool:
    """Whether a sentence stating agreement is as broad as a claim over a whole class: it has a
    word of breadth or unanimity (``agreed unanimously``, ``all the guides``), or each of the
    claim's groups named in English is in the plural there ("the night nurses agreed") or a
    body ("the Compliance Committee"); one or two people of the class ("the conservation
    officer", "Inspector K. Ortega") are not."""
    lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES)
    bodies = "|".join(re.escape(b) for lex in lexes for b in lex.bodies)
    named = [g for g in groups if ":" not in g and g not in _COLLECTIVES]
    for low in sentences:
        if any(p.search(low) for lex in lexes for p in (lex.breadth, lex.every, lex.unanimity)):
            return True
        if named and all(
            any(
                re.search(
                    rf"\b{re.escape(n)}(?:s|es|\s+(?:{bodies}))\b|\b{re.escape(n.rstrip('y'))}ies\b", low
                )
                or n in _COLLECTIVES
                for n in _names(g)
            )
            for g in named
        ):
            return True
    return False


def _unstated(
    groups: frozenset[str],
    stated: Mapping[str, tuple[str, ...]],
    near: Mapping[str, tuple[str, ...]],
    every: bool = False,
) -> frozenset[str]:
    """The groups of a claim whose agreement the context does not state. A claim is supported
    when the context states agreement by each of its groups ("mechanics,
    like engineers, agree" needs both; a claim that names no group: by anyone). A group is stated
    when a document's claim names it, or when it is a word of the subject of a document's
    agreement (``near``: "SRE and security agreed" states the security team's); a group with
    several English names (``expert/adjuster``) by any of them. A group no table names in English
    (``de:filialleiter``) is stated by a document stating agreement by that word in its language,
    or by the same word in another (a name: "das Appeals Board" and "the Appeals Board"); never
    by another group's agreement, nor by agreement by anyone. In the languages read by their
    tables, whose claims give every word of a subject, such words may also qualify a group ("les
    pharmaciens de réanimation"): with another of the claim's groups stated, they need not be; nor
    need the word for a team or a department (:data:`_COLLECTIVES`)."""
    # a table may give a word several English names ("perito": expert/adjuster/assessor)
    names = _names(*stated, *near)
    found = {g: any({n, _bare(n), claim_stem(n)} & names for n in _names(g)) for g in groups}
    # a group named on its own in one language is named in another by a word of the same stem
    # ("il servizio ambulanze regionale": "the regional ambulance service")
    bare = {_bare(n) for n in names}
    for g in groups:
        if g.startswith(_lexicon.NAMED) and not found[g]:
            found[g] = any(_same_stem(_bare(n), b) for n in _names(g) for b in bare)
        elif ":" in g and not g.startswith("en:") and not found[g]:
            # a word no table translates is stated by its cognate ("vétérinaire", "veterinarian")
            found[g] = any(_cognate(_bare(g), b) for b in bare)
    for g in groups:
        if not found[g] and g.removeprefix(_lexicon.NAMED)[:3] in _COMPOUNDS:
            # a compound of a stated name and a role ("outreacharts": the outreach's doctor)
            found[g] = any(_compound_of(_bare(n), b, n[:2]) for n in _names(g) for b in bare)
    # a group named on its own (an inclusion's, a range's end) is required in any language
    required = [
        g
        for g in groups
        if g.startswith(_lexicon.NAMED)
        or ((":" not in g or g.startswith("en:") or every) and g not in _COLLECTIVES)
    ]
    if not any(found.values()):
        return frozenset(groups)
    return frozenset(g for g in required if not found[g])


def _named_elsewhere(groups: frozenset[str], context: str, people: frozenset[str]) -> tuple[str, ...]:
    """The people the answer names as agreeing (``people``) among ``groups`` that ``context``
    writes in no sentence with a word of objection ("Gwen Pryce ...: 'We do not accept ...'"), or
    ``()`` if any group is no such person."""
    out = []
    for g in groups:
        word = _bare(g.removeprefix(_lexicon.NAMED).split("/")[0])
        written = [m for m in re.finditer(rf"(?<![\w-]){re.escape(word.capitalize())}(?![\w-])", context)]
        if word not in people or not word.isalpha() or not written:
            return ()
        for m in written:
            start = max(context.rfind(".", 0, m.start()), context.rfind("\n", 0, m.start())) + 1
            stop = [i for i in (context.find(".", m.end()), context.find("\n", m.end())) if i >= 0]
            if _OBJECTION.search(context, start, min(stop) if stop else len(context)):
                return ()
        out.append(word.capitalize())
    return tuple(out)


#: A word of objection or of no answer in a document's sentence: who it names does not agree
_OBJECTION = re.compile(
    r"(?i)\b(?:disagree[sd]?|dispute[sd]?|object(?:s|ed)?|reject(?:s|ed)?|contest(?:s|ed)?|oppose[sd]?|"
    r"do(?:es)?\s+not\s+(?:accept|agree)|don't\s+(?:accept|agree)|doesn't\s+(?:accept|agree)|"
    # or has not answered: "has not replied", "no reply yet"
    r"not\s+(?:yet\s+)?(?:replied|responded|answered)|no\s+(?:reply|response|answer))\b"
)


#: The shortest stem two words of a group's name may share, and the longest ending one may add
#: (:func:`_same_stem`)
_STEM = 6
_ENDING = 2


#: The shortest stem two cognates share, and its least share of the shorter word (:func:`_cognate`)
_COGNATE_STEM = 7
_COGNATE_SHARE = 0.7


#: The shortest stated name a compound may start with ("sepsis", read "sepsi": "sepsisarts")
_COMPOUND_NAME = 5
#: The languages that write a role after a name as one word (:func:`_compound_of`)
_COMPOUNDS = ("de:", "nl:")


def _compound_of(word: str, name: str, language: str) -> bool:
    """Whether ``word`` is ``name`` (of at least :data:`_COMPOUND_NAME` letters) followed by a role word of
    ``language``'s table ("outreacharts", "sepsisarts"), a linking "s" aside."""
    if len(name) < _COMPOUND_NAME or len(word) <= len(name) or not word.startswith(name):
        return False
    rest = word[len(name) :].lstrip("s-")
    roles = _lexicon.lexicon(language).groups
    return len(rest) >= 3 and any(k.startswith(rest) and len(k) - len(rest) <= _ENDING for k in roles)


def _cognate(a: str, b: str) -> bool:
    """Whether two words of two languages name one role by one stem, accents aside ("vétérinaire",
    "veterinario", "veterinarian"; "œnologue", "oenologist"): a common start of at least
    :data:`_COGNATE_STEM` letters, most of the shorter word."""
    a, b = canonical_text(a).lower(), canonical_text(b).lower()
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return n >= _COGNATE_STEM and n >= _COGNATE_SHARE * min(len(a), len(b))


def _same_stem(a: str, b: str) -> bool:
    """Whether one word is the other with a short ending added ("regionale", "regional"; not
    "monitoring", "monitor"), the shorter of at least :data:`_STEM` letters."""
    short, long = sorted((a, b), key=len)
    return len(short) >= _STEM and len(long) - len(short) <= _ENDING and long.startswith(short)


#: A claim that agreement exists, naming no one ("there is agreement that", "Darüber besteht
#: Einigkeit"), in the seven languages: a document's "X agreed" states it
_THERE_IS_AGREEMENT = re.compile(
    r"(?i)\b(?:there\s+is|there's|besteht|herrscht|gibt\s+es|il\s+y\s+a|existe|hay|h[a\u00e1]|c'[e\u00e8]|"
    r"vi\s+[e\u00e8]|er\s+is|er\s+bestaat)\b[^.;:!?\n]{0,40}?\b(?:agreement|consensus|einigkeit|konsens|"
    r"einvernehmen|accord|acuerdo|consenso|acordo|accordo|overeenstemming)\b"
    r"|\b(?:agreement|einigkeit|konsens|accord|acuerdo|acordo|accordo|overeenstemming)\b[^.;:!?\n]{0,40}?"
    r"\b(?:besteht|herrscht|existe|exists|bestaat)\b"
)

#: The key of :func:`_stated_near` under which a document states agreement by someone (a word of
#: agreement or a claim, not a sign-off): what a claim that names no group needs
_ANYONE = "*"

#: The words for a team or a department qualify a group like a word no table names: "l'équipe
#: commerciale" needs sales stated, not any team; "il team di ingegneria" is stated by the team's
_COLLECTIVES = frozenset({"team", "department"})


def _bare(group: str) -> str:
    """A group's word without its language (``de:board``: ``board``), as another language's
    document may write the same name."""
    return group.partition(":")[2] or group


def _names(*groups: str) -> set[str]:
    """The English names of groups (``expert/adjuster``: both), a group named on its own by its
    forms (``!it:gestori/it:gestore``: both)."""
    return {n for g in groups for n in g.removeprefix(_lexicon.NAMED).split("/")}


#: A word of agreement in a document, whatever its subject ("SRE and security agreed")
_AGREEMENT_WORD = re.compile(
    r"\b(?:agree[sd]?|agreeing|agreement|concur(?:s|red)?|unanimous(?:ly)?|consensus|aligned|endorsed?)\b"
)
#: Whom a document's subject agrees with, up to what the agreement is on
_AGREED_WITH = re.compile(
    r"\s+with\s+(?P<who>(?:the\s+)?(?:(?!that\b|on\b|about\b|to\b|it\b|this\b|him\b|her\b|them\b)[a-z][a-z&-]*\b\s*){1,4})"
    r"(?=that\b|on\b|about\b|[,.;:!?]|$)"
)
#: A sign-off in a document ("the SRE lead and the security lead signed off on SEV2"): its
#: subject's words are groups that agree, but it states no agreement in a language by itself (not
#: "confirmed": "which the examiner has confirmed" confirms a fact, no one's agreement)
_SIGN_OFF_WORD = re.compile(r"\b(?:signed[\s-]off|sign-off|approved|endorsed|backed|accepted)\b")
#: A word of agreement or sign-off in a clause with one of these states none ("the nurses do
#: not agree", "whether the brokers approved it")
_NOT_STATED = re.compile(r"\b(?:not|no|never|neither|nor|without|whether|if|yet\s+to)\b|n't\b")
#: Where the subject of a document's agreement may start: a sentence's or a clause's start (a
#: comma may stand inside a list of groups; a clock's colon, "attended at 13:00 and agreed", and an
#: initial's or a title's point, "Inspector K. Ortega", "Capt. Volkov", are none)
_SUBJECT_START = re.compile(
    r"[;!?()\n]|(?<!\d):|:(?!\d)|(?<!\b[A-Z])(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bDra)(?<!\bCapt)(?<!\bProf)\."
)
#: A short aside in brackets in a document's sentence
_ASIDE = re.compile(r"\s*\([^()\n]{1,80}\)")
#: A title's point inside a speaker's name ("consultant oenologist Dr. Mareike Lenz"), or an
#: initial's before the surname ("Prof. H. Okoro")
_TITLE_DOT = (
    r"(?:(?:(?<=\bdr)|(?<=\bdra)|(?<=\bmr)|(?<=\bms)|(?<=\bmrs)|(?<=\bprof)|(?<=\bcapt))\."
    r"|(?-i:(?<=\b[A-Z])\.(?=[ \t]+[A-Z][a-z])))"
)
#: The words for a document that has a speaker (an e-mail, a letter, a reply)
_DOCUMENT_WORD = (
    r"(?:e-?mails?|mails?|letters?|messages?|notes?|memos?|repl(?:y|ies)|statements?|responses?|comments?|"
    r"minutes|courriels?|lettres?|briefe?|schreiben|nachricht|correos?|cartas?|mensajes?|lettera|nota|"
    r"berichten?|brieven|r[ée]ponse|antwort|respuesta|resposta|risposta|antwoord)"
)
#: The speaker of a document's own words ("E-mail from the customs broker, 27 Jan: 'We agree ...'",
#: "From: the site pharmacist", "Lettre du transitaire", "the broker wrote:"): agreement in the first
#: person there is theirs
_AUTHOR = re.compile(
    rf"\b{_DOCUMENT_WORD}\s+(?:from|by|de(?:\s+la|\s+los|\s+las)?|du|des|von|vom|der|van(?:\s+de|\s+het)?|"
    r"da|do|dos|della|dello|del|dal|dalla|di)\s+"
    rf"(?P<a>(?:[^,.;:()\n\d'\"\u2018\u2019\u201c\u201d]|{_TITLE_DOT}){{2,60}})"
    r"|^\s*(?:from|von|de|van|da|di)\s*:\s*(?P<b>[^\n,;(]{2,60})"
    r"|(?P<c>[^,.;:()\n\d]{2,60}?)\s+(?:wrote|writes|schrieb|schreibt|a\s+écrit|écrit|escribió|escreveu|"
    r"scrive|ha\s+scritto|schreef|schrijft)\s*:",
    re.IGNORECASE | re.MULTILINE,
)
#: Agreement in the first person: the document's speaker agrees
_FIRST_PERSON = re.compile(
    r"\b(?:we|i|us|our|nous|je|j|wir|ich|wij|ik|nosotros|nosotras|yo|n[oó]s|eu|noi|io)\b"
)


#: An aside that is only the subject's acronym ("the Independent Data Monitoring Committee (IDMC)
#: agreed"): its name, kept as a word of the subject
_ACRONYM_ASIDE = re.compile(r"\s*\(\s*[A-Z][A-Za-z0-9&]*[A-Z][A-Za-z0-9&]*\s*\)")


#: An aside that is only a person's name, a title's point aside ("ICU outreach (Dr Tomas
#: Quintero) agreed"): who the subject is, kept as words of the subject
_NAME_ASIDE = re.compile(r"\s*\(\s*(?:[A-Z][\w'-]*\.?\s+){0,3}[A-Z][\w'-]+\s*\)")


def _aside_blanked(m: re.Match[str]) -> str:
    """An aside as spaces, offsets kept, unless it is the subject's acronym or a person's name
    (its brackets then)."""
    text = m.group()
    if _ACRONYM_ASIDE.fullmatch(text) or _NAME_ASIDE.fullmatch(text):
        return text.replace("(", " ").replace(")", " ")
    return " " * len(text)


@lru_cache(maxsize=64)
def _stated_near(context: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, ...]]:
    """The words of the subjects of the agreement the documents state, read generously (every
    word of the clause before a word of agreement, and of a claim, in each language's form of a
    group: "the stewardship committee and the ICU pharmacists agree" states stewardship,
    committee, ICU and pharmacist) -> the ids of those documents. Never agreement by anyone."""
    out: dict[str, list[str]] = {}
    for doc_id, text in context:
        # an aside between a subject and its verb ("the field team (regional engineering) agreed")
        # is read as if it were not there, offsets kept
        read = _ASIDE.sub(_aside_blanked, _lexicon.rules_text(text))
        low = read.lower()
        lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES, _lexicon.writes_accents(text))
        words_of = [(m.start(), m.end(), "en", True) for m in _AGREEMENT_WORD.finditer(low)]
        words_of += [(m.start(), m.end(), "", True) for m in _SIGN_OFF_WORD.finditer(low)]
        spans = [(cl.start, cl.end, "en", False) for cl in find_claims(read)]
        spans += [
            (s, e, lex.language, False) for lex in lexes for s, e, _ in _lexicon.find_claims([lex], read)
        ]
        for s, e, language, bare in words_of + spans:
            begin = max(0, s - 120)
            for mark in _SUBJECT_START.finditer(read, begin, s):
                begin = mark.end()
            begin = _subject_begin(low, begin, s)
            # a bare word of agreement is read with its clause's negation (claims were already)
            if bare and _NOT_STATED.search(low, begin, min(len(low), e + 12)):
                continue
            words = claim_words(low[begin:e], lexes, language or "en")
            # whom the subject agrees with holds the view too ("Finance agreed with Loss
            # Prevention that ...")
            with_whom = _AGREED_WITH.match(low, e) if bare else None
            if with_whom is not None:
                words |= claim_words(with_whom.group("who"), lexes, language or "en")
            if _FIRST_PERSON.search(low, begin, e):
                who = _speaker(read, s)
                if who is not None:
                    words |= claim_words(who.lower(), lexes, language or "en")
            # (a word of agreement, not a sign-off, is agreement by someone: what a claim that
            # names no group needs, "Darüber besteht Einigkeit")
            for word in words - {"en:"} if not language else words | {_ANYONE}:
                docs = out.setdefault(word, [])
                if doc_id not in docs:
                    docs.append(doc_id)
        # an elliptical reply ("Agreed.", "Einverstanden.", "Akkoord.") is the speaker's first person
        for s, _, language in _lexicon.find_replies(lexes, low):
            who = _speaker(read, s, _after_colon(low, s))
            if who is None:
                continue
            for word in claim_words(who.lower(), lexes, language) | {f"{language}:", _ANYONE}:
                docs = out.setdefault(word, [])
                if doc_id not in docs:
                    docs.append(doc_id)
    # a person stated as agreeing is named by the role a document gives them in brackets after
    # their name ("to Dr Luis Ferreira (blood bank medical director)")
    lexes = _lexicon.lexicons(_lexicon.TABLE_LANGUAGES)
    for _, text in context:
        for m in _ROLE_ASIDE.finditer(text):
            agreed = out.get(m.group("name").split()[-1].lower(), [])
            for word in claim_words(m.group("role").lower(), lexes, "en") - {"en:"} if agreed else ():
                out.setdefault(word, []).extend(d for d in agreed if d not in out.get(word, ()))
    # a person listed by role and name ("Present: PSCO Marten, Master Silva"), the only one of
    # that role, is named by the role a document states as agreeing ("The Master agreed")
    for _, text in context:
        items = [m.group("role", "name") for m in _ROLE_AND_NAME.finditer(text)]
        roles = [claim_words(r.lower(), lexes, "en") - {"en:"} for r, _ in items]
        for (_, name), words in zip(items, roles, strict=True):
            agreed = [d for w in words if sum(w in ws for ws in roles) == 1 for d in out.get(w, ())]
            for word in claim_words(name.lower(), lexes, "en") - {"en:"} if agreed else ():
                docs = out.setdefault(word, [])
                docs.extend(d for d in dict.fromkeys(agreed) if d not in docs)
    return {w: tuple(d) for w, d in out.items()}


#: An item of a list that gives a role, then a person's surname ("Present: PSCO Marten, Master
#: Silva, Chief Engineer Okafor"): the role one to three words, the item ending at a comma or stop
_ROLE_AND_NAME = re.compile(
    r"(?:(?<=:)|(?<=,))[ \t]*(?:and[ \t]+)?(?P<role>(?:[A-Za-z][a-z]*[ \t]+){0,2}[A-Za-z][A-Za-z]+)"
    r"[ \t]+(?P<name>[A-Z][a-z][\w'-]+)(?=[ \t]*[,.;\n]|[ \t]+and[ \t])"
)


#: A person's name and their role in brackets after it ("Dr Luis Ferreira (blood bank medical
#: director)", "Karen Liu (QPPV)": a role's acronym too): the role is a name of that person too
_ROLE_ASIDE = re.compile(
    r"(?P<name>(?:(?:Dr|Dra|Mr|Mrs|Ms|Prof|Capt)\.?\s+)?[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*){0,2})"
    r"\s*\((?P<role>[a-z][^()\n]{2,60}|[A-Z]{2,}[A-Za-z0-9&]*)\)"
)


#: A word that opens a subordinate clause ("After the customer complained, the team agreed"): its
#: words are no subject of the agreement after it, in the seven languages
_SUBORDINATE = re.compile(
    r"(?<![\w'])(?:after|when|whenever|because|since|although|though|while|once|before|until|as\s+soon\s+as|"
    r"nachdem|als|weil|obwohl|während|bevor|sobald|wenn|après\s+que|après|quand|lorsque|lorsqu|parce\s+que|"
    r"puisque|bien\s+que|avant\s+que|después\s+de\s+que|después\s+de|cuando|porque|aunque|mientras|ya\s+que|"
    r"depois\s+que|depois\s+de|quando|embora|enquanto|dopo\s+che|dopo|poiché|perché|sebbene|mentre|"
    r"nadat|toen|omdat|hoewel|terwijl|voordat|zodra|sinds)(?![\w'])"
)
#: A comma in a document's clause before its agreement, and the words of an item of a list
_COMMA = re.compile(r",")
_ITEM_WORD = re.compile(r"[^\W\d_]+")
#: How many words an item of a list of groups may have ("the DNO planning team")
_LIST_ITEM_WORDS = 4


def _subject_begin(low: str, begin: int, s: int) -> int:
    """Where the subject of a document's agreement at ``s`` starts, its clause starting at
    ``begin``: at the last comma before it, unless what stands before that comma is a short item
    of a list ("Finance, Legal and Security agreed"); never in a subordinate clause ("After the
    customer complained, the planning team agreed": the customer is not who agreed)."""
    commas = [m.start() for m in _COMMA.finditer(low, begin, s)]
    cut = commas[-1] + 1 if commas else begin
    for i in range(len(commas) - 1, -1, -1):
        item_start = commas[i - 1] + 1 if i else begin
        item = low[item_start : commas[i]]
        if _SUBORDINATE.search(item) or not 0 < len(_ITEM_WORD.findall(item)) <= _LIST_ITEM_WORDS:
            break
        cut = item_start
    return cut


#: Who a document's speaker writes to, after their name ("E-mail from the head rigger to the
#: technical director"): not the speaker
_ADDRESSEE = re.compile(
    r"\s+(?:to|cc|an|à|au|aux|a|al|alla|alle|ai|agli|ao|aos|às|aan|naar|para|per|für|pour|for)\s",
    re.IGNORECASE,
)


def _speaker(read: str, pos: int, same_line: bool = False) -> str | None:
    """The speaker of a document's words at ``pos``: the name the last :data:`_AUTHOR` before it
    gives, without the addressee after it; with ``same_line``, only one on the line of ``pos`` (a
    reply after a colon: "The broker wrote: Agreed.", not "Status: agreed."), or the name that
    opens the line's clause before a quoted reply (:data:`_SPEAKER_LINE`)."""
    author = next((a for a in reversed(list(_AUTHOR.finditer(read, 0, pos))) if a.start() < pos), None)
    if same_line and (author is None or "\n" in read[author.start() : pos]):
        line = _SPEAKER_LINE.search(read, 0, pos) or _LOG_LINE.search(read, 0, pos)
        if line is None:
            return None
        if _DOCUMENT_HEAD.match(line.group("who")):
            # "Reply, 15 Jul 2026 11:42, Agency inspector Helen Vasquez: 'Agreed: ...'": the
            # document's word opens the line, its speaker stands after the date
            return read[line.end("who") : line.end()]
        parts = _NAME_AFTER.findall(read, line.end("who"), line.end())
        return " ".join([line.group("who"), *parts])
    if author is None:
        return None
    who = author.group("a") or author.group("b") or author.group("c")
    # the speaker's name after their role ("E-mail from the consulting arborist, Dr R. Okafor, 3
    # March: ...") names them too
    names = _NAME_AFTER.match(read, author.end())
    return " ".join([_ADDRESSEE.split(who, 1)[0], *(names.groups() if names else ())])


#: The point after a short capitalised word: a title ("Dr.", "Dra.", "Prof.", "M."), no sentence's end
_TITLE_POINT = r"(?:(?:(?<=\b[A-Z])|(?<=\b[A-Z][a-z])|(?<=\b[A-Z][a-z]{2})|(?<=\b[A-Z][a-z]{3}))\.)?"
#: A speaker's line before a quoted reply: the name opening its clause, then a date, a time or a
#: place after a comma, then the colon ("Facility manager, 15 March: 'Agreed.'", "Bus operator
#: Greenline: 'Agreed.'"), a title's point inside it ("Shelter veterinarian Dr. Okafor"); a field's
#: value is no reply ("Status: agreed.": no quote)
_SPEAKER_LINE = re.compile(
    r"(?:^|(?<=\n)|(?:(?<![\d\s])|(?<=\d:\d\d))[.;!?][\"'\u2019\u201d]?\s+)[ \t*\u2022-]*"
    rf"(?P<who>[^\W\d_][\w'&-]*{_TITLE_POINT}"
    rf"(?:[ \t]+[^\W\d_][\w'&-]*{_TITLE_POINT}){{0,5}})"
    r"(?:[ \t]*,[ \t]*(?:\d{1,2}[:.h]\d{2}(?:\.\d{2,4})?|"
    r"(?:[A-Z]\.[ \t]*|\d{1,2}:\d{2}|[^\n,.;:!?]){1,60}?)){0,3}"
    r"[ \t]*:[ \t]*[\"'\u2018\u201c\u201e\u00ab][ \t]*\Z"
)


#: A document's word opening a speaker's line ("Reply, 15 Jul 2026 11:42, <speaker>:")
_DOCUMENT_HEAD = re.compile(rf"(?i){_DOCUMENT_WORD}\Z")


#: A decision log's line before a reply: its time, then who ("05:55 Northsound Ferries duty
#: manager: Agreed."), the reply quoted or not (a time opens no field: "Status: agreed." is none);
#: or an entry after another's end on one line ("... 'Agreed.' 05:55 Northsound duty manager: ..."),
#: a log written as one paragraph too (its lines open after a sentence's end)
_LOG_LINE = re.compile(
    r"(?:^|(?<=\n)|(?<=[.!'\"\u2019\u201d][ \t])|(?<![\d\s])[.;!?]\s+|[.;!?][\"'\u2019\u201d]\s+)"
    r"[ \t*\u2022-]*\[?\d{1,2}[:.h]\d{2}(?::\d{2})?\]?[ \t]*(?:[-|\u2013\u2014][ \t]*)?"
    r"(?P<who>[^\W\d_][\w'&-]*(?:[ \t]+[^\W\d_][\w'&-]*){0,5})"
    r"[ \t]*:[ \t]*[\"'\u2018\u201c\u201e\u00ab]?[ \t]*\Z"
)
#: A person's name set off by a comma after their role: capitalised words and initials ("the
#: consulting arborist, Dr R. Okafor, 3 March")
_NAME_AFTER = re.compile(r"[ \t]*,[ \t]*((?:[A-Z][\w'-]*\.?[ \t]+){0,4}[A-Z][\w'-]+)(?=[ \t]*[,:(])")


def _after_colon(low: str, pos: int) -> bool:
    """Whether the text right before ``pos`` (quote marks and spaces aside) ends in a colon."""
    return low[:pos].rstrip(" \t\"'*_\u2022-").endswith(":")


def _build_no_consensus(a: Assertion, negated: bool) -> _Evaluate:
    def evaluate(c: Canonical, ctx: CaseContext) -> _Result:
        text = c.text
        r = _Read(c)
        claims = [cl for cl in find_claims(text) if r.supported(cl.start)]
        for s, e, groups in _lexicon.find_claims(r.lexicons(), r.rules.text):
            if not r.supported(s):
                continue
            # one claim read by two languages' rules ("De consensus is": Dutch, and English
            # "consensus is") is one claim, by the groups either reads
            same = next((i for i, cl in enumerate(claims) if s < cl.end and cl.start < e), None)
            if same is None:
                claims.append(Claim(s, e, groups))
            else:
                cl = claims[same]
                claims[same] = Claim(min(cl.start, s), max(cl.end, e), cl.groups | groups)
        claims.sort(key=lambda cl: cl.start)
        unread = r.unsupported()
        if not claims:
            if unread:
                raise r.unreadable(unread, "the answer (it may claim agreement there)")
            return True, "answer claims no agreement"
        # agreement a context document states, in any language the graders read, by the groups
        # it names (a claim that names none: agreement by anyone)
        stated = ctx.consensus_groups
        near = _stated_near(tuple(ctx.context.items()))
        low = r.rules.text.lower()
        sentences = _agreement_sentences(tuple(ctx.context.items()))
        unsupported = [
            cl
            for cl in claims
            if not _supported(
                cl.groups,
                stated,
                near,
                _THERE_IS_AGREEMENT.search(r.rules.text, cl.start, cl.end) is not None,
                (_broad_claim(r.lexicons(), low, cl), sentences),
            )
        ]
        if not unsupported and unread:
            raise r.unreadable(unread, "part of the answer (it may claim agreement there)")
        people = named_parties(text)
        named = [
            _named_elsewhere(_unstated(cl.groups, stated, near), ctx.context_text, people)
            for cl in unsupported
        ]
        roles = {g: _lexicon.unread_role(g) for cl in unsupported for g in cl.groups}
        if unsupported and all(
            any(roles[g] for g in _unstated(cl.groups, stated, near))
            and _supported(
                frozenset(h[1] if (h := roles[g]) else g for g in cl.groups),
                stated,
                near,
                _THERE_IS_AGREEMENT.search(r.rules.text, cl.start, cl.end) is not None,
                (_broad_claim(r.lexicons(), low, cl), sentences),
            )
            for cl in unsupported
        ):
            # a compound role whose field no table reads (``Schadensleiter``) and whose head's
            # agreement the context states: it may state the role's under its English name
            who = join_names(sorted({f"'{v[0]}'" for v in roles.values() if v}))
            raise _Unreadable(
                Unread.FORM,
                f"the answer names {who}, a compound role the tables do not translate; the context "
                "may state its agreement under another name",
            )
        if unsupported and all(named):
            # a person the context names, neither agreeing nor objecting: it may state their
            # agreement by their role ("Hartmann Claims Services" is the loss adjuster)
            who = join_names(sorted({n for ns in named for n in ns}))
            raise _Unreadable(
                Unread.FORM,
                f"the context names {who} but states neither their agreement nor their objection; "
                "it may state it under a role",
            )
        if not unsupported:
            docs = tuple(
                dict.fromkeys(
                    d
                    for cl in claims
                    for g, ids in (*stated.items(), *near.items())
                    if _names(g) & {m for n in _names(*cl.groups) for m in (n, _bare(n), claim_stem(n))}
                    or (not cl.groups and (g in stated or g == _ANYONE))
                    for d in ids
                )
            )
            first = claims[0]
            begin = max(sentence_start(text, first.start), first.start - 40)
            claim = _quote_answer(c, begin, max(first.end, begin + 60), 90)
            return True, f"answer claims agreement ({claim}) that the context states ({join_names(docs)})"
        first = unsupported[0]
        begin = max(sentence_start(text, first.start), first.start - 40)
        claim = _quote_answer(c, begin, max(first.end, begin + 60), 90)
        more = f" (and {len(unsupported) - 1} more)" if len(unsupported) > 1 else ""
        return False, f"answer claims agreement the context does not state: {claim}{more}"

    return evaluate
