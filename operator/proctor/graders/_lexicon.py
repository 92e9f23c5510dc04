"""The language graders' rules for the languages besides English, as data: ``languages/*.yaml``.

English is read by :mod:`proctor.graders._language` (its rules grew with the adversarial sets and
stay there). Each other supported language has one table beside this module, written from native
phrasing (not translated English), with these keys:

``negation_before``
    words or phrases that, right before a label (``fillers`` may stand between), negate or contrast
    it (French ``pas``, ``plutôt que``; German ``kein``, ``statt``); ``double_negation`` first
    names it (``rien d'autre que``, ``nichts anderes als``).
``conditional`` and ``conditional_after``
    anywhere in the clause before a label, or right after it (one word may stand between): the
    label is hypothetical (``si``, ``falls``, ``entre``; ``HIGH solo se``, ``HIGH nur wenn``). A
    clause that opens with a condition word and ends at a comma also makes the clause after it
    hypothetical when the condition sets a threshold (a figure, or a word of ``threshold``:
    ``dépasse``, ``über``; or an event it waits for: ``s'allume``, ``aufleuchtet``): that is the
    consequent of a rule (``Si le débit dépasse 0,60, la bande est HIGH``); a label inside the
    condition (``le voyant ALARM``) is its consequent only when it ends it. A condition on
    something else is a caveat of a verdict (``Si le capteur est fiable, la bande est ELEVATED``).
    A point or comma between two digits (``0,60``, ``1.000,5``) ends no clause.
``rating_verbs``, ``disowned_before`` and ``disputed_after``
    a band the answer will not give, or that others give: the verbs of rating may stand between
    a negation and its label, read as ``fillers`` (``no lo calificaría de HIGH``, ``non lo
    definirei HIGH``); a band others would argue for is not named, read as ``negation_before``
    (``algunos analistas defenderían HIGH``); a band the answer then disputes is denied, read
    as ``denied_after`` (``Le comité l'a classé HIGH, mais je ne suis pas d'accord``).
``condition_first``
    words that open a condition only first in their clause (German ``Läge der Wert über 0,60,
    wäre ...``: the verb first). Elsewhere they are other words: the rules read accents folded,
    and ``läge`` is then ``Lage`` (``Die Lage der Pumpe ist ELEVATED``).
``framing``
    words that make a condition a way of looking at the facts, not a condition on them (``si se
    compara con el límite de 0,60, el consumo es ELEVATED``: compared with, a verdict): a clause
    with one of them is not hypothetical for its condition word.
``change_before``
    right before a label: a change still to come (``will become``, ``deviendra``, ``passerà a``):
    hypothetical, not the state now.
``conditional_mood``
    a verb in the conditional mood in the clause before a label (``serait``, ``wäre``) makes it
    hypothetical when its sentence has a condition word or a figure before the label (``au-delà
    de 0,60 on serait HIGH``); alone (``ce serait plutôt ELEVATED``) it is a hedged verdict.
``denied_after``
    right after a label: it is denied (``est faux``, ``trifft nicht zu``, ``? nee``).
``past_before`` and ``past_after``
    right before a label (``yesterday``, ``la semaine dernière``) or right after it (``NORMAL
    last week``, ``NORMAL la semaine dernière``): a state the answer says is past, not the
    verdict (``| Band | ELEVATED (was NORMAL last week) |`` names ELEVATED).
``change_from``, ``change_to`` and ``change_words``
    a change of band, ``from X to Y`` (``von HIGH auf MEDIUM``, ``de HIGH à MEDIUM``, or ``HIGH →
    MEDIUM``) between two labels: with a word of change in its sentence (``went``, ``herabgestuft``,
    ``passé``, ``verlaagd``, a ``downgrade``), X is the past band and Y the verdict, whatever time
    dates the change (``Downgraded from HIGH to MEDIUM yesterday``), and a word of change right
    before ``from`` makes X past alone (``MEDIUM, herabgestuft von HIGH``); without one it is a range
    (``from LOW to HIGH depending on the day``), and neither is a verdict. A word of
    ``change_future`` before them in the sentence (a word of ``change_now``, ``now``, ``jetzt``, is a
    word of change there too, but not before ``from``) makes the change one still to come (``expected
    to move from MEDIUM to HIGH``, ``kan van MEDIUM naar HIGH gaan``): no verdict either.
``rather_or_before``
    words of ``past_before`` that mean "rather" after a negated clause (Portuguese and Spanish
    ``antes``, Dutch ``eerder``): ``Não o classificaria como HIGH; antes MEDIUM`` names MEDIUM,
    ``Antes HIGH, agora MEDIUM`` does not name HIGH.
``qualifier_fields``
    the names of fields that qualify a verdict rather than give it (confidence, ``Konfidenz``,
    ``confiance``): a label as their value (``Confidence: HIGH``, ``with HIGH confidence``) is
    not the verdict when the answer names another label (``Classification: MEDIUM``); alone
    it is.
``clause_breaks``
    conjunctions that end a clause (``mais``, ``sondern``), as English "but".
``refusal``
    phrases of declining (``je ne peux pas``, ``keine Ahnung``, ``no consta``).
``source_silent``
    phrases of declining that say the source is silent (``dazu steht in den Unterlagen nichts``,
    ``le rapport n'aborde pas ce point``, ``el informe no entra en ese detalle``): read as
    ``refusal``. A source that says nothing *against* a verdict (``nichts, was gegen BBB
    spricht``) is an answer, not one of these.
``guess_markers`` and ``numbers``
    a guessed verdict is an upper-case word after a marker (``probablement HIGH``); ``numbers``
    are number words with their values (no word for one: it is also the article).
``consensus`` and ``claim_negators``
    claims of agreement (``les experts s'accordent``, ``unbestritten``); a negator earlier in the
    claim's clause makes it no claim (``pas tous les experts``).
``common_view``
    claims of agreement without a verb of agreeing, read as ``consensus``: a view said to be
    everyone's (``c'est l'avis unanime des spécialistes``, ``die Fachwelt ist sich da einig``, ``è
    opinione diffusa tra``), or what any member of a trade would tell you (``qualquer analista
    diria o mesmo``, ``elke analist zal je hetzelfde vertellen``); never what any member *can*
    do (``cualquier analista puede comprobarlo``).

Phrase syntax: words are matched whole, in canonical form (accents folded, so ``plutôt`` matches
``plutot`` too), in any case, a run of spaces matching any whitespace; ``...`` stands for up to
five words of the same clause (``ne ... que``: no ``.;:!?`` between).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from proctor.graders._canon import canonical_text
from proctor.graders._languages import SUPPORTED_LANGUAGES

#: The languages with a table here (English's: only what ``_language`` does not already read).
TABLE_LANGUAGES: tuple[str, ...] = SUPPORTED_LANGUAGES

_KEYS = (
    "negation_before",
    "disowned_before",
    "double_negation",
    "fillers",
    "rating_verbs",
    "conditional",
    "condition_first",
    "conditional_after",
    "conditional_mood",
    "framing",
    "threshold",
    "change_before",
    "denied_after",
    "disputed_after",
    "past_before",
    "past_after",
    "rather_or_before",
    "change_from",
    "change_to",
    "change_words",
    "change_future",
    "change_now",
    "qualifier_fields",
    "clause_breaks",
    "refusal",
    "source_silent",
    "guess_markers",
    "consensus",
    "common_view",
    "claim_negators",
)
_B = r"(?<![\w'])"  # a phrase starts a word
_E = r"(?![\w])"  # and ends one


def _phrase(p: str) -> str:
    """One phrase as a regex (see the module documentation)."""
    text = canonical_text(p).lower().strip()
    parts = []
    words = text.split()
    for i, word in enumerate(words):
        if word == "...":
            parts.append(r"(?:[^\s.;:!?]+\s+){0,5}?")  # words of one clause: no mark that ends one
            continue
        w = re.escape(word.rstrip("*")) + (r"\w*" if word.endswith("*") else "")
        # before a gap, the words put in between may be set off by a comma ("kann ich, ehrlich
        # gesagt, nicht"): the gap's own words carry theirs
        gap_next = i + 1 < len(words) and words[i + 1] == "..."
        parts.append(w + (r"\s*" if word.endswith("'") else r"[,;]?\s+" if gap_next else r"\s+"))
    body = "".join(parts)
    body = body[: -len(r"\s+")] if body.endswith(r"\s+") else body[: -len(r"\s*")]
    lead = "" if text[:1] in "?,-" else _B
    tail = "" if text[-1:] in ".?,-" or text.endswith("'") else _E
    return lead + body + tail


def _alternation(phrases: Iterable[str]) -> str:
    ordered = sorted({_phrase(p) for p in phrases}, key=len, reverse=True)
    return "(?:" + "|".join(ordered) + ")" if ordered else "(?!)"


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's rules, compiled (see the module documentation)."""

    language: str
    negated_end: re.Pattern[str]
    double_end: re.Pattern[str]
    conditional: re.Pattern[str]
    to_label: re.Pattern[str]
    condition_opens: re.Pattern[str]
    framing: re.Pattern[str]
    threshold: re.Pattern[str]
    conditional_after: re.Pattern[str]
    conditional_mood: re.Pattern[str]
    change_end: re.Pattern[str]
    denied_after: re.Pattern[str]
    past_end: re.Pattern[str]
    past_after: re.Pattern[str]
    rather_end: re.Pattern[str]
    #: a change's ``from`` ending the clause before a label, and its ``to`` and the next label after it
    change_from_end: re.Pattern[str]
    change_to_after: re.Pattern[str]
    #: ``from LABEL to`` ending the clause before a label: the label is where a change (or range) goes
    change_dest_end: re.Pattern[str]
    change_word: re.Pattern[str]
    #: a word of change right before the change's ``from`` ending the clause before a label
    #: (``MEDIUM, herabgestuft von HIGH``): the band it came from
    changed_from_end: re.Pattern[str]
    change_future: re.Pattern[str]
    #: a qualifying field's name right before a label ("Confidence: HIGH") or right after it
    #: ("HIGH confidence")
    qualifier_end: re.Pattern[str]
    qualifier_after: re.Pattern[str]
    clause_break: re.Pattern[str]
    refusal: re.Pattern[str]
    #: the words of its phrases of declining (``keine``, ``ahnung``, ``nicht``...): a word in
    #: capitals among them is the refusal shouted, not a verdict guessed inside it
    refusal_words: frozenset[str]
    guess_marker_end: re.Pattern[str]
    numbers: Mapping[str, float]
    number_word: re.Pattern[str]
    consensus: re.Pattern[str]
    claim_negator: re.Pattern[str]


#: A label as the change rules see it, in the text as written: a word in capitals (``LOW``, ``HIGH``)
_LABEL_WORD = r"(?-i:[A-Z][A-Z0-9_-]*[A-Z0-9])"
_LABEL_END = r"[\"'`*_)\]]*"
_LABEL_NEXT = rf"[\s\"'`*_(\[]*{_LABEL_WORD}(?![\w-])"
#: an arrow between two labels: a change (``HIGH → MEDIUM``), from the one before it to the one after
_ARROW = r"(?:\u2192|\u27f6|\u21d2|-+>|=+>)"
_LABEL_IN = re.compile(rf"(?<![\w-]){_LABEL_WORD}(?![\w-])")
_ARROW_AFTER = re.compile(rf"{_LABEL_END}\s*{_ARROW}{_LABEL_NEXT}")
_ARROW_BEFORE = re.compile(rf"(?<![\w-]){_LABEL_WORD}{_LABEL_END}\s*{_ARROW}[\s\"'`*_(\[]*$")


def _strings(doc: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: {key} must be a list of non-empty strings")
    return list(value)


def _compile(doc: Mapping[str, Any], where: str) -> Lexicon:
    t = {key: _strings(doc, key, where) for key in _KEYS}
    t["refusal"] += t["source_silent"]  # a silent source is a refusal like any other
    t["consensus"] += t["common_view"]  # and a view said to be everyone's a claim of agreement
    t["fillers"] += t["rating_verbs"]
    t["negation_before"] += t["disowned_before"]
    t["denied_after"] += t["disputed_after"]
    numbers = doc.get("numbers", {})
    if not isinstance(numbers, dict) or not all(
        isinstance(k, str) and isinstance(v, int | float) and not isinstance(v, bool)
        for k, v in numbers.items()
    ):
        raise ValueError(f"{where}: numbers must map words to numbers")
    fillers = (
        "(?:"
        + "|".join(
            sorted((re.escape(canonical_text(f).lower()) for f in t["fillers"]), key=len, reverse=True)
        )
        + ")"
    )
    filler_run = rf"(?:(?:\s+|(?<='))(?:{fillers}))*"
    open_tail = rf"{filler_run}[\s\"'`*_(\[]*"
    tail = open_tail + "$"
    folded = {canonical_text(k).lower(): float(v) for k, v in numbers.items()}
    return Lexicon(
        language=str(doc["language"]),
        negated_end=re.compile(_alternation(t["negation_before"]) + tail),
        double_end=re.compile(_alternation(t["double_negation"]) + tail),
        # never a clitic after a hyphen (Portuguese "situa-se", "enquadra-se": the pronoun, not "if")
        conditional=re.compile("(?<!-)" + _alternation(t["conditional"])),
        to_label=re.compile(tail),
        condition_opens=re.compile(r"^[\s\"'`*_]*" + _alternation(t["conditional"] + t["condition_first"])),
        framing=re.compile(_alternation(t["framing"])),
        threshold=re.compile(r"\d|" + _alternation(t["threshold"])),
        # right after the label, or after one noun it qualifies ("HIGH uniquement si", "HIGH-Stufe nur wenn")
        # matched where a label ends, in any case (the text is not lowered: no window to lower)
        conditional_after=re.compile(
            r"\s*(?:[\w-]+\s+)?" + _alternation(t["conditional_after"]), re.IGNORECASE
        ),
        conditional_mood=re.compile(_alternation(t["conditional_mood"])),
        change_end=re.compile(_alternation(t["change_before"]) + tail),
        denied_after=re.compile(r"[\s\"'`)*_]*" + _alternation(t["denied_after"]), re.IGNORECASE),
        past_end=re.compile(_alternation(t["past_before"]) + tail),
        past_after=re.compile(r"[\s\"'`*_]*" + _alternation(t["past_after"]), re.IGNORECASE),
        rather_end=re.compile(_alternation(t["rather_or_before"]) + tail),
        change_from_end=re.compile(_alternation(t["change_from"]) + tail),
        change_to_after=re.compile(
            rf"{_LABEL_END}(?:\s+[\w-]+){{0,2}}?\s+{_alternation(t['change_to'])}{filler_run}{_LABEL_NEXT}",
            re.IGNORECASE,
        ),
        change_dest_end=re.compile(
            rf"{_alternation(t['change_from'])}{filler_run}[\s\"'`*_(\[]*{_LABEL_WORD}{_LABEL_END}"
            rf"(?:\s+[\w-]+){{0,2}}?\s+{_alternation(t['change_to'])}{tail}",
            re.IGNORECASE,
        ),
        change_word=re.compile(_alternation(t["change_words"] + t["change_now"])),
        changed_from_end=re.compile(
            _alternation(t["change_words"]) + r"\s+" + _alternation(t["change_from"]) + tail
        ),
        change_future=re.compile(_alternation(t["change_future"])),
        # a field: its name, a colon or an equals sign ("Confidence: HIGH"; "met zekerheid HIGH" is "surely")
        qualifier_end=re.compile(_alternation(t["qualifier_fields"]) + r"[\s*_]*[:=][\s\"'`*_(\[]*$"),
        # on the label's own line: "MEDIUM\nConfidence: HIGH" is two fields
        qualifier_after=re.compile(r"[ \t\"'`*_)\]]*" + _alternation(t["qualifier_fields"]), re.IGNORECASE),
        clause_break=re.compile(r"[.,;:!?()\[\]\n]|" + _alternation(t["clause_breaks"])),
        refusal=re.compile(_alternation(t["refusal"])),
        refusal_words=frozenset(
            w.rstrip("*") for p in t["refusal"] for w in canonical_text(p).lower().split() if w != "..."
        ),
        guess_marker_end=re.compile(_alternation(t["guess_markers"]) + tail),
        numbers=folded,
        number_word=re.compile(_alternation(folded)),
        consensus=re.compile(_alternation(t["consensus"])),
        claim_negator=re.compile(_alternation(t["claim_negators"])),
    )


@cache
def lexicon(language: str) -> Lexicon:
    """The compiled table of ``language`` (one of :data:`TABLE_LANGUAGES`)."""
    if language not in TABLE_LANGUAGES:
        raise KeyError(language)
    source = resources.files("proctor.graders").joinpath("languages", f"{language}.yaml").read_text("utf-8")
    doc = yaml.safe_load(source)
    if not isinstance(doc, dict) or doc.get("language") != language:
        raise ValueError(f"languages/{language}.yaml: language must be {language!r}")
    return _compile(doc, f"languages/{language}.yaml")


def lexicons(languages: Iterable[str]) -> list[Lexicon]:
    """The tables of those of ``languages`` that have one."""
    return [lexicon(lang) for lang in TABLE_LANGUAGES if lang in set(languages)]


#: How far back a clause is read: before a label (a condition, a negation, the clause before a
#: comma), a guessed verdict (its marker) and a claim of agreement (its negator).
_REACH = 120
#: How far back a sentence is read for the condition or figure that makes a conditional verb a rule.
_SENTENCE_REACH = 240
_CAPS = re.compile(r"(?<![\w])[A-Z][A-Z][A-Z_-]{2,}(?![\w])")
#: An upper-case word ending a clause: its consequent, not a name inside the condition
#: ("Si le voyant ALARM s'allume, la bande est HIGH": a rule).
_CAPS_AT_END = re.compile(r"(?<![\w])[A-Z][A-Z][A-Z_-]{2,}[\s\"'`*_)]*$")


def _in_figure(text: str, i: int) -> bool:
    """Whether the character at ``i`` is a decimal or thousands separator: a point or comma
    between two digits (``0,60``, ``1.000,5``, ``1,000.5``). One after a figure and before a space
    (``0,60, la bande``) ends a clause like any other."""
    return text[i] in ".," and text[i - 1 : i].isdigit() and text[i + 1 : i + 2].isdigit()


def _clause_at(lex: Lexicon, text: str, pos: int) -> tuple[str, str, int]:
    """The lower-case clause of ``text`` that ends at ``pos`` (at most :data:`_REACH` characters),
    as ``lex`` breaks clauses, with the break that opens it and where that starts (``""`` and the
    window's start when none does)."""
    start = max(0, pos - _REACH)
    window = text[start:pos].lower()
    cut, mark, at = 0, "", start
    for m in lex.clause_break.finditer(window):
        if not _in_figure(text, start + m.start()):
            cut, mark, at = m.end(), m.group(), start + m.start()
    return window[cut:], mark, at


def _clause(lex: Lexicon, text: str, pos: int) -> str:
    """The lower-case clause of ``text`` that ends at ``pos``, as ``lex`` breaks clauses."""
    return _clause_at(lex, text, pos)[0]


def _conditional(lex: Lexicon, clause: str) -> bool:
    """Whether a condition word makes ``clause``, which ends at a label, hypothetical.

    Not when the condition only frames how the answer looks at the facts (``si se compara con``,
    ``wenn man ... vergleicht``), nor when the word stands right before the label (fillers
    aside) in the middle of its clause: it opens no condition there but says what the thing is
    classed as (Dutch ``geldt als ELEVATED``, ``ik beoordeel dit als ELEVATED``). Opening the
    clause, it is a rule (``Als HIGH: direct melden``)."""
    if lex.framing.search(clause) is not None:
        return False
    return any(
        not (clause[: m.start()].strip() and lex.to_label.match(clause, m.end()))
        for m in lex.conditional.finditer(clause)
    )


def _after_condition(lex: Lexicon, text: str, pos: int) -> bool:
    """Whether the clause ending at ``pos`` is the consequent of a threshold's condition: the
    clause before it opens with a condition word, sets a threshold and a comma ends it (``Si le
    débit dépasse 0,60, la bande est HIGH``, ``Wenn ... überschreitet, ist die Stufe HIGH``). A
    band's rule, not the state now; ``Si le capteur est fiable, ...`` is a caveat, not a rule."""
    _, mark, at = _clause_at(lex, text, pos)
    if mark != ",":
        return False
    condition = _clause_at(lex, text, at)[0]
    if _CAPS_AT_END.search(text, at - len(condition), at):
        return False  # the condition already holds its consequent ("Als het stijgt is het HIGH, nu ...")
    return (
        lex.condition_opens.match(condition) is not None
        and lex.threshold.search(condition) is not None
        and lex.framing.search(condition) is None
    )


_SENTENCE_START = re.compile(r"[.!?;\n](?:\s|$)")
_DIGIT = re.compile(r"\d")
_FIGURE_AT_END = re.compile(r"[-+~]?\d[\d.,]*\s*(?:%|[a-z\u00b0\u00b5]{1,6}(?:/[a-z]{1,4})?)?\s*$")


def _change(lexes: list[Lexicon], text: str, s: int, e: int) -> str | None:
    """Whether the label at ``[s, e)`` is where a change of band starts (``"from"``: ``von HIGH auf
    MEDIUM herabgestuft``), where it ends (``"to"``), or an end of a range (``"range"``: ``de LOW
    à HIGH selon les jours``, no word of change in the sentence in any of these languages); None
    when it is neither."""
    raw = text[max(0, s - _REACH) : s]  # as written: the patterns end at the label, no clause break in them
    if _ARROW_AFTER.match(text, e):
        return "from"  # an arrow is a change in any language: "HIGH → MEDIUM"
    if _ARROW_BEFORE.search(raw):
        return "to"
    where = None
    for lex in lexes:
        if lex.changed_from_end.search(raw.lower()):
            return "from"  # "MEDIUM, herabgestuft von HIGH"
        if lex.change_to_after.match(text, e) and lex.change_from_end.search(raw.lower()):
            where = "from"
        elif lex.change_dest_end.search(raw):
            where = "to"
    if where is None:
        return None
    before = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s])[-1]
    after = _SENTENCE_START.split(text[e : e + _SENTENCE_REACH])[0]
    sentence = f"{before} {after}".lower()
    if any(lex.change_future.search(before.lower()) for lex in lexes):
        return "range"  # a change still to come: no band of it is the state now
    return where if any(lex.change_word.search(sentence) for lex in lexes) else "range"


def _rather(lex: Lexicon, text: str, s: int, clause: str) -> bool:
    """Whether the word before the label at ``s`` is "rather" (``antes``, ``eerder``) after a
    clause that negates a label (``Não o classificaria como HIGH; antes MEDIUM``), not "before"
    (``Het was niet duidelijk; eerder HIGH, nu MEDIUM``)."""
    if not lex.rather_end.search(clause):
        return False
    at = _clause_at(lex, text, s)[2]
    before = _clause(lex, text, at)
    label = _LABEL_IN.search(text, at - len(before), at)
    return label is not None and lex.claim_negator.search(before) is not None


def label_use(lexes: Iterable[Lexicon], text: str, s: int, e: int) -> str | None:
    """How the label at ``[s, e)`` of ``text`` is used by these languages' rules: ``"named"`` (a
    double negation, or where a change of band ends), ``"negated"``, ``"hypothetical"``,
    ``"qualifier"`` (the value of a field such as confidence), or None (nothing said)."""
    lexes = list(lexes)
    if any(
        lex.qualifier_end.search(text[max(0, s - 40) : s].lower()) or lex.qualifier_after.match(text, e)
        for lex in lexes
    ):
        return "qualifier"
    change = _change(lexes, text, s, e)
    if change == "from":
        return "negated"  # the band before a change: past
    if change == "range":
        return "hypothetical"
    for lex in lexes:
        clause = _FIGURE_AT_END.sub("", _clause(lex, text, s))
        if lex.double_end.search(clause):
            return "named"
        # where a change ends is the state now, whatever time dates the change ("yesterday")
        past = change is None and (
            (lex.past_end.search(clause) and not _rather(lex, text, s, clause))
            or lex.past_after.match(text, e)
        )
        if lex.negated_end.search(clause) or lex.denied_after.match(text, e) or past:
            return "negated"
        if (
            _conditional(lex, clause)
            or lex.conditional_after.match(text, e)
            or lex.change_end.search(clause)
            or _after_condition(lex, text, s)
        ):
            return "hypothetical"
        if lex.conditional_mood.search(clause):
            sentence = _SENTENCE_START.split(text[max(0, s - _SENTENCE_REACH) : s].lower())[-1]
            if _conditional(lex, sentence) or _DIGIT.search(sentence):
                return "hypothetical"
    return "named" if change == "to" else None


def find_refusal(lexes: Iterable[Lexicon], text: str) -> tuple[int, int] | None:
    """The first phrase of declining in ``text`` in these languages, or None."""
    low = text.lower()
    found = [m.span() for lex in lexes if (m := lex.refusal.search(low)) is not None]
    return min(found) if found else None


def find_number_words(lexes: Iterable[Lexicon], text: str, start: int) -> list[tuple[int, int, float]]:
    """Number words of these languages from ``start`` on: ``(start, end, value)``."""
    low = text.lower()
    out = []
    for lex in lexes:
        for m in lex.number_word.finditer(low, start):
            out.append((m.start(), m.end(), lex.numbers[m.group()]))
    return sorted(out)


def find_guessed_verdicts(
    lexes: Iterable[Lexicon], text: str, start: int, exempt: frozenset[str]
) -> list[tuple[int, int]]:
    """Upper-case words right after a guess marker of these languages (``probablement HIGH``)."""
    out = []
    lexes = list(lexes)
    for m in _CAPS.finditer(text, start):
        if m.group().lower() in exempt:
            continue
        before = text[max(start, m.start() - _REACH) : m.start()].lower()
        if any(lex.guess_marker_end.search(before) for lex in lexes):
            out.append(m.span())
    return out


def find_claims(lexes: Iterable[Lexicon], text: str) -> list[tuple[int, int]]:
    """Claims of agreement in these languages that no negator earlier in their clause undoes."""
    low = text.lower()
    out = []
    for lex in lexes:
        for m in lex.consensus.finditer(low):
            if not lex.claim_negator.search(_clause(lex, text, m.start())):
                out.append(m.span())
    return sorted(out)
