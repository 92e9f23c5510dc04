"""Which language each sentence of an answer is in, and whether a grader may read it.

The language graders (``label``, ``refusal``, ``no-guess-after-refusal``,
``no-manufactured-consensus``) read words, and their rules exist for :data:`SUPPORTED_LANGUAGES`
only (the tables are in ``languages/*.yaml`` beside this module, one file per language). A
sentence in any other language is one they cannot read: their check is then *undetermined*, never
a pass or a fail guessed from rules written for another language.

Detection: ``py3langid`` (langid.py's model, 4.5 MB inside the PyPI package, offline; about
0.1 ms a sentence). Measured on short answer sentences (one to eight words) in the seven
supported languages and seven others, it named 92 of 101 right and read no unsupported sentence
as a supported language; ``lingua-language-detector`` named 89 of 101 in its high-accuracy mode
at 6 ms a sentence, 78 s to load and 1.3 GB of memory (73 of 101 in its low-accuracy mode), and
read an unsupported sentence as a supported one. Its misses are close neighbours of short
sentences (Galician for Portuguese, Afrikaans for Dutch, Basque for "No idea, sorry."), so a
supported language close behind an uncertain unsupported first choice is taken (see
:func:`_decide`).

Each sentence is detected on its own (answers mix languages); a sentence with too few words of
its own to tell (labels, figures, identifiers and upper-case words do not count: ``ELEVATED.``,
``Pas ELEVATED.``) takes the language of the whole answer, and an answer with too few words to
tell is *neutral*: the rules of the supported languages the detector still finds plausible for
its few words read it (:func:`plausible`: "Il consumo si attesta su ELEVATED." is read as Italian,
not by the Spanish "si"), every table when it has no word to rank. A table row of figures, units
and labels (``| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |``) takes the language of the answer's other
words, its headers or prose (:func:`_short_row`), not one guessed from ``mmol``. Results are
cached per text.
"""

from __future__ import annotations

import bisect
import re
import threading
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from proctor.graders._canon import _ASCII_CONTROLS, _visible, canonical_text, text_cache

#: Languages the language graders have rules for (ISO 639-1), English first.
SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "fr", "de", "es", "pt", "it", "nl")
#: Names for reasons and the README.
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
}
#: A sentence needs this many words of its own (three letters or more, not upper case) to be detected.
MIN_WORDS = 3
#: Below this probability the first choice is uncertain: a supported language close behind it wins.
UNCERTAIN = 0.5
#: Below this probability the first choice is a guess among many: every language is compared.
UNSURE = 0.1
#: "Close behind": at least this share of the first choice's probability.
CLOSE_BEHIND = 0.5
#: Below this probability an unsupported first choice with a neighbour among the supported
#: languages is not sure either: European Portuguese ranks Galician 0.55 to 0.61, Portuguese
#: close behind at 0.38 to 0.41; Galician itself ranks 0.99.
NEIGHBOUR_SURE = 0.8
#: Unsupported languages that short sentences of a supported neighbour are taken for. Below
#: :data:`NEIGHBOUR_SURE`, a sentence is the supported neighbour's by its words (:func:`_neighbours`):
#: "Lenz concorda: primeiro o SO2, engarrafamento depois." ranks Galician 0.69, Portuguese 0.29,
#: every word in Portuguese's small list; "Lenz está dacordo" (Portuguese 0.32) stays Galician,
#: "dacordo" is in no Portuguese list. wordfreq has no Galician list. A short Dutch aside ranks
#: Afrikaans ("aangepast na het antwoord van Duda": Afrikaans 0.55, Dutch 0.45); Afrikaans of its
#: own ranks 0.88 to 0.99 ("Die pomp werk goed, so NORMAL.", "Ek is nie seker nie.").
NEIGHBOURS = {"gl": "pt", "af": "nl"}
#: Unsupported languages so close that the detector splits a short sentence's probability between
#: them: their probabilities are one. "Alle er enige: X." ranks Norwegian 0.45, Danish 0.29,
#: Dutch 0.13: Scandinavian at 0.77, not a guess between Norwegian and Dutch.
FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"no", "nn", "da", "sv"}),
    frozenset({"hr", "bs", "sr"}),
    frozenset({"cs", "sk"}),
    frozenset({"ms", "id"}),
)
#: A sentence too short to detect is read by the supported languages ranked at least this share
#: of the likeliest supported one ("Pas" ranks French at 0.55 of Portuguese: both read it).
PLAUSIBLE = 0.2
#: A sentence too short to detect is in an unsupported language (so read by no table: undetermined)
#: when that language is more than this many times likelier than every supported one: "Riziko je
#: MEDIUM, ne HIGH." ranks Serbian 170 times over Italian, "Procjena je MEDIUM." Bosnian 900 times
#: over Spanish. Short sentences of the supported languages rank theirs at least a sixth of the
#: likeliest ("Dunno.": Latin 0.128, Italian 0.021), most of them first.
FOREIGN = 10.0

#: A sentence too short to detect whose detector's first choice is an unsupported language is in
#: that language (so undetermined) when one of its words is this much likelier there than in every
#: supported language, on wordfreq's Zipf scale (a logarithm: 1.0 is ten times as frequent). Danish
#: "ikke" is 7.1 in Danish, 3.2 in Dutch; "undetermined" is in no Danish list.
FOREIGN_ZIPF = 1.0
#: A common word (about three in a hundred thousand or more): two or more short words all common
#: in an unsupported language and not all in any one supported language are that language
COMMON_ZIPF = 4.5
#: For a first choice wordfreq has no list of (Swahili, Basque, Luxembourgish...): a word in none of
#: the supported languages' lists, and the first choice this many times likelier than every supported
#: language (Swahili "Sijui." 5.2 times, Hungarian "Nem RED, hanem AMBER." 2.1; German "Konfidenz: HIGH"
#: ranks Luxembourgish 1.5 times over German).
FOREIGN_SHORT = 2.0

#: A sentence the detector gives an uncertain unsupported first choice is a supported language's
#: when at least this share of its ordinary words (two letters or more, not upper case: acronyms,
#: units and figures are none) are common (:data:`COMMON_ZIPF`) there: "No tengo la LDH ni la
#: bilirrubina." ranks Swahili 0.46, Spanish 0.10, and five of its six words are common Spanish.
MOSTLY_COMMON = 0.75

#: A short sentence's first choice without rules is its language when a word rules out the
#: supported languages it is not common in and it is this many times likelier than each of the
#: others: "No ho sé." ranks Catalan 4.8 times over Italian ("ho" is rare in Spanish); "Si es X."
#: ranks Catalan only 2.1 times over Spanish, whose words they both are.
OUTRANKS = 4.0

#: Where sentences end (as the language graders split them).
#: A German (or Danish, Norwegian...) ordinal day before its month: its point ends no sentence
_ORDINAL_DAY = re.compile(
    r"(?<!\d)\d{1,2}\.\s+(?:Jan(?:uar)?|Jänner|Feb(?:ruar)?|März|Apr(?:il)?|Mai|Jun[i]?|Jul[i]?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Okt(?:ober)?|Nov(?:ember)?|Dez(?:ember)?)\b"
)
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]+(?=\s|$)|[\u3002\uff01\uff1f]|\n")
#: An initial's or a title's point before a name's next word: no sentence ends there
_NAME_POINT = re.compile(
    r"(?:(?<![\w.])[A-Z]|\b(?i:dr|dra|mr|mrs|ms|mme|mlle|prof|capt|sr|sra|hr|fr|dott|ing|mevr|dhr))"
    r"\.[ \t]+(?=[A-Z][a-z.])"
)
#: What is not a word of the sentence's language: HTML tags, URLs, identifiers and figures (a
#: token holding a digit, matched from the token's start only: ``\S*\d\S*`` tried at every position
#: of a long token without a digit is quadratic, 40 s for one 64 KiB word), upper-case words
#: (labels, acronyms), units (letters joined by slashes: ``g/L``, ``mg/Nm³``, ``U/l``: their
#: letters are no words to rank), markup.
_TERMS = (
    r"(?<!\S)(?=[^\s\d]*\d)\S+"
    r"|(?<![^\s(])[^\W\d_]{1,4}[\u00b2\u00b3]?(?:/[^\W\d_]{1,4}[\u00b2\u00b3]?)+(?![^\s.,;:!?)])"
    r"|\b[A-Z][A-Z_\-]+\b"
)
_NOT_WORDS = re.compile(
    r"<[^<>\n]{1,80}>|(?:https?://|www\.)\S+|" + _TERMS + r"|[`*_#>|\[\](){}<>\"=:;,.!?/\\+~^-]+"
)
#: Figures, codes, acronyms and units: the gaps they leave mislead the detector (:data:`MOSTLY_COMMON`)
_TERM = re.compile(_TERMS)
_LATIN_WORD = re.compile(r"[^\W\d_]{3,}")
_ANY_WORD = re.compile(r"[^\W\d_]{2,}")
#: The model's code for text without linguistic content.
NO_LANGUAGE = "zxx"


def _other_script(text: str) -> bool:
    """Letters beyond Latin (Greek, Cyrillic, CJK, Arabic...): detectable from a few of them."""
    return any(ch.isalpha() and ord(ch) > 0x24F for ch in text)


@cache
def _identifier() -> Any:
    import py3langid.langid as langid  # loaded on first use: 1.5 s, and most grading needs none

    return langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)


_lock = threading.Lock()


def preload_detector() -> None:
    """Load the detector's model now (about a second): before forking grading workers, so they
    share it instead of each loading its own."""
    _identifier()


def _rank(text: str) -> list[tuple[str, float]]:
    """The first choice alone when it settles the question (half the cost), else the first four."""
    ident = _identifier()
    with _lock:  # the identifier keeps per-call state
        lang, p = ident.classify(text)
        if lang in SUPPORTED_LANGUAGES or p >= (NEIGHBOUR_SURE if lang in NEIGHBOURS else UNCERTAIN):
            return [(str(lang), float(p))]
        ranked = ident.rank(text)
    # a first choice this unsure ranks dozens of languages alike: a supported one close behind
    # may be fifth or tenth ("The pilots report X.": Catalan 0.05, English 0.04)
    keep = len(ranked) if p < UNSURE else 4
    return [(str(lang), float(q)) for lang, q in ranked[:keep]]


def _family_reads(ranked: list[tuple[str, float]], text: str) -> bool:
    """Whether the first choice's family (:data:`FAMILIES`) is the likelier half of the ranking
    (the first choice not a guess among many: :data:`UNSURE`) and every word of ``text`` (two
    letters or more, not upper case) is common (:data:`COMMON_ZIPF`) in one of its wordfreq lists:
    "Alle er enige" ("er" 7.5 in Danish); "Danger level: VERY HIGH?" ranks Danish and Norwegian at
    0.51, but "danger" is rare in both."""
    first, p = ranked[0]
    family = next((f for f in FAMILIES if first in f), None)
    if family is None or p < UNSURE or sum(q for lang, q in ranked if lang in family) < UNCERTAIN:
        return False
    words = [w.casefold() for w in _ANY_WORD.findall(text) if not w.isupper()]
    listed = family & _listed() | ({"nb"} if "no" in family else set())
    return bool(words) and any(all(_zipf(w, lang) >= COMMON_ZIPF for w in words) for lang in listed)


def _decide(ranked: list[tuple[str, float]], text: str = "") -> str:
    """The language of a ranking: the first choice, unless it is an uncertain unsupported one
    with a supported language close behind (short sentences of neighbouring languages), or its
    supported neighbour's words (:data:`NEIGHBOURS`)."""
    first, p = ranked[0]
    if first in SUPPORTED_LANGUAGES or p >= (NEIGHBOUR_SURE if first in NEIGHBOURS else UNCERTAIN):
        return first
    neighbour = NEIGHBOURS.get(first)
    if neighbour is not None and _neighbours(ranked, text, neighbour):
        return neighbour
    # a family's probability, when it is the likelier half and the words are its own
    if _family_reads(ranked, text):
        return first
    for lang, q in ranked[1:]:
        close = lang in SUPPORTED_LANGUAGES and lang != neighbour and q >= CLOSE_BEHIND * p
        # a guess among many says nothing against its words ("Parameter, result value, flag")
        if close and (p < UNSURE or not _contradicted(text, lang, first)):
            return lang
    return first


def _ordinary_words(text: str) -> list[str]:
    """The words of ``text`` that say its language: two letters or more, not upper case."""
    return [w.casefold() for w in _ANY_WORD.findall(text) if not w.isupper()]


def _mostly_common(ranked: list[tuple[str, float]], text: str) -> str | None:
    """The supported language in which :data:`MOSTLY_COMMON` of the ordinary words of ``text`` are
    common, the likeliest share first, unless a word says the first choice (:func:`_contradicted`).
    A short technical sentence is a few common words around rare terms the detector reads as
    another language's ("bilirrubina")."""
    words = _ordinary_words(text)
    if len(words) <= MIN_WORDS:  # three short words are common in many languages ("Non o sei.")
        return None
    first = ranked[0][0]
    shares = {lang: _common_share(words, lang) for lang in SUPPORTED_LANGUAGES}
    shares[first] = max((_common_share(words, lang) for lang in _lists_of(first)), default=0.0)
    likely = dict(ranked)  # a tie goes to the detector's likelier ("A Hb de entrada era de 72 g/L.")
    for lang in sorted(SUPPORTED_LANGUAGES, key=lambda lang: (-shares[lang], -likely.get(lang, 0.0))):
        if shares[lang] < MOSTLY_COMMON or shares[lang] <= shares[first]:
            return None
        # its rare words too: Spanish "bilirrubina" is in the Spanish list, Occitan "bilirubina"
        # ("Ai pas la LDH ni la bilirubina.", every other word common French) in no French one
        if _words_of(text.casefold(), lang, "large") and not _contradicted(text, lang, first):
            return lang
    return None


def _lists_of(lang: str) -> frozenset[str]:
    """The wordfreq lists of an unsupported language: its own, or its family's (:data:`FAMILIES`:
    Norwegian's is "nb"); none for one wordfreq lacks (it would read a neighbour's list instead)."""
    family = next((f for f in FAMILIES if lang in f), frozenset({lang}))
    return family & _listed() | ({"nb"} if "no" in family else frozenset())


def _common_share(words: list[str], lang: str) -> float:
    return sum(_zipf(w, lang) >= COMMON_ZIPF for w in words) / len(words)


def _contradicted(text: str, lang: str, first: str) -> bool:
    """Whether a word of ``text`` says it is the unsupported ``first`` rather than the supported
    ``lang``: not common (:data:`COMMON_ZIPF`) in ``lang`` but common in ``first``'s wordfreq list
    (Catalan "ho" is no common Spanish word), or, ``first`` being ``lang``'s neighbour without a
    list (:data:`NEIGHBOURS`: Galician), common in another list ("Non o sei.": "non" is no common
    Portuguese word). Rare words (terms, abbreviations: "bilirrubina", "Hb") say nothing."""
    words = _ordinary_words(text)
    if lists := _lists_of(first):
        return any(_zipf(w, lang) < COMMON_ZIPF <= max(_zipf(w, other) for other in lists) for w in words)
    if NEIGHBOURS.get(first) != lang:
        return False
    common_elsewhere = (w for w in words if any(_zipf(w, other) >= COMMON_ZIPF for other in _listed()))
    return any(_zipf(w, lang) < COMMON_ZIPF for w in common_elsewhere)


def _neighbours(ranked: list[tuple[str, float]], text: str, neighbour: str) -> bool:
    """Whether a sentence whose first choice is a neighbour of ``neighbour`` (:data:`NEIGHBOURS`)
    is ``neighbour``'s: ranked second with every word in its small list, or close behind with no
    word missing from its large list."""
    q = next((q for lang, q in ranked[1:] if lang == neighbour), 0.0)
    if ranked[1:2] and ranked[1][0] == neighbour and _words_of(text, neighbour, "small"):
        return True
    return q >= CLOSE_BEHIND * ranked[0][1] and _words_of(text, neighbour, "large", empty=True)


def _words_of(text: str, lang: str, wordlist: str, empty: bool = False) -> bool:
    """Whether every word of ``text`` not capitalised (a capitalised one may be a name: "Lenz") is
    in ``lang``'s wordfreq ``wordlist``; a text with no such word is ``empty``."""
    lower = [w.casefold() for w in _LATIN_WORD.findall(text) if not w[0].isupper()]
    return all(_zipf(w, lang, wordlist) > 0 for w in lower) if lower else empty


def detect(text: str) -> str | None:
    """The language of ``text`` (ISO 639-1 or the model's code), or None: too few words to tell.

    A text of one or two words is read as another language only when the model is confident of
    it (``Nie wiem``, ``Bilmiyorum``) or ranks it far above every supported one (``Procjena je``:
    :data:`FOREIGN`); otherwise it is neutral (``qt/hr per``, ``No idea``)."""
    rest = _without_names(_NOT_WORDS.sub(" ", text))
    other = _other_script(rest)
    words = len(_LATIN_WORD.findall(rest))
    if not other and words < MIN_WORDS:
        joint = _common_only_in(rest)
        if joint is not None:
            return joint  # "Nu HIGH, ci VERY_HIGH.": "nu" is Dutch and "ci" Italian, both Romanian
    if not other and not words:
        # words of two letters only: neutral, unless they say a language without rules ("No ho sé.")
        first = _rank(rest)[0][0] if _ANY_WORD.search(rest) else NO_LANGUAGE
        foreign = first not in SUPPORTED_LANGUAGES and first != NO_LANGUAGE
        return first if foreign and _outranks_readers(rest, first) else None
    ranked = _rank(rest)
    first, p = ranked[0]
    technical = first not in SUPPORTED_LANGUAGES and p < UNCERTAIN and _TERM.search(text) is not None
    common = _mostly_common(ranked, rest) if technical else None
    lang = common or _decide(ranked, rest)
    if lang == NO_LANGUAGE:
        # no language the model knows, but maybe one a word list does ("Lze AMBER.": Czech)
        return None if other or words >= MIN_WORDS else _every_word_listed(rest)
    if other or words >= MIN_WORDS:
        return lang
    if common is not None:
        return common  # "No tengo la LDH ni la bilirrubina.": its few words are Spanish's common ones
    if lang not in SUPPORTED_LANGUAGES:
        p = ranked[0][1]
        if p >= UNCERTAIN or _family_reads(ranked, rest) or _far_likelier(rest, p):
            return lang
    first = ranked[0][0]
    if first not in SUPPORTED_LANGUAGES and first != NO_LANGUAGE and _foreign_word(rest, first):
        return first  # "Ei RED vaan AMBER.": "vaan" is a common Finnish word, and rare in the seven
    if first not in SUPPORTED_LANGUAGES and first != NO_LANGUAGE and _outranks_readers(rest, first):
        return first  # "No ho sé.": "ho" is no common Spanish word, and Catalan outranks Italian
    # whatever the model's first choice, every word may be another language's: one of the three
    # unsupported languages wordfreq lists that the model ranks highest, where each word is ten
    # times as frequent as in any of the seven ("Inte X, snarare Y.": Nynorsk first, then Italian,
    # and both words Swedish; "Lactate is red." stays English, "red" is English)
    return _every_word_listed(rest)


#: A capitalised word after a sentence's first (a person's or a place's name, or a German noun)
_INNER_CAPITAL = re.compile(r"(?<=[^\W\d_])(?P<gap>[^\w.!?]+)(?P<name>[A-Z][a-z]{2,})\b")


def _without_names(text: str) -> str:
    """``text`` without the capitalised words after its first that no supported language's list
    holds: a name says nothing of the sentence's language ("Dr Okafor agreed" is English, though
    "Okafor" ranks it Nigerian Pidgin; "Kowalczyk agreed" Polish), a German noun stays."""

    def masked(m: re.Match[str]) -> str:
        return m.group("gap") + (
            " " * len(m.group("name"))
            if _zipf_supported(m.group("name").casefold()) == 0
            else m.group("name")
        )

    out = _INNER_CAPITAL.sub(masked, text)
    return out if _LATIN_WORD.search(out) else text


#: A row of a Markdown table: its cells are no sentence of their own
_TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*\n?$")


def _short_row(text: str) -> bool:
    """Whether ``text`` is a table row with too few words of its own to tell its language (figures,
    units, chemical symbols and labels: ``| K+ | 6,9 mmol/L | **CRITICAL_HIGH** |``): it takes the
    language of the answer's words (its headers, its prose), not one guessed from ``mmol``."""
    if _TABLE_ROW.match(text) is None:
        return False
    rest = _NOT_WORDS.sub(" ", text)
    return not _other_script(rest) and len(_LATIN_WORD.findall(rest)) < MIN_WORDS


def _common_only_in(text: str) -> str | None:
    """One of the three unsupported languages wordfreq lists that the model ranks highest, when
    ``text`` has two words of two letters or more (not upper case), each common there
    (:data:`COMMON_ZIPF`), and no supported language has every one of them common: short words
    each of which some supported language has, but no one language all ("Nu X, ci Y": Dutch
    "nu", Italian "ci")."""
    words = [w.casefold() for w in _ANY_WORD.findall(text) if not w.isupper()]
    if len(words) < 2:
        return None
    if any(all(_zipf(w, lang) >= COMMON_ZIPF for w in words) for lang in SUPPORTED_LANGUAGES):
        return None
    return next(
        (lang for lang in _likeliest_listed(text) if all(_zipf(w, lang) >= COMMON_ZIPF for w in words)), None
    )


def _every_word_listed(text: str) -> str | None:
    """One of the three unsupported languages wordfreq lists that the model ranks highest, when
    every word of ``text`` is :data:`FOREIGN_ZIPF` likelier there than in any supported language."""
    for listed in _likeliest_listed(text):
        if _all_words_of(text, listed):
            return listed
    return None


def _likeliest_listed(text: str) -> list[str]:
    """The three unsupported languages wordfreq lists that the model ranks highest for ``text``."""
    with _lock:
        ranked = _identifier().rank(text)
    listed = _listed()
    return [str(lang) for lang, _ in ranked if lang not in SUPPORTED_LANGUAGES and lang in listed][:3]


def _all_words_of(text: str, lang: str) -> bool:
    """Whether every word of ``text`` (not upper case) is :data:`FOREIGN_ZIPF` likelier in
    ``lang``'s list than in any supported language's."""
    words = [w.casefold() for w in _LATIN_WORD.findall(text) if not w.isupper()]
    return bool(words) and all(_zipf(w, lang) >= _zipf_supported(w) + FOREIGN_ZIPF for w in words)


def _foreign_word(text: str, first: str) -> bool:
    """Whether a word of ``text`` (too short to detect, the detector's first choice ``first``, an
    unsupported language) is of that language rather than a supported one: in wordfreq's list of
    ``first`` :data:`FOREIGN_ZIPF` more frequent than in any of theirs ("vaan", "ikke", "wiem"), or
    in none of theirs while the detector ranks ``first`` :data:`FOREIGN_SHORT` times over every
    supported language (Swahili "Sijui.", ranked Lithuanian)."""
    # upper-case words are labels and acronyms, also when a look-alike letter hides them (NO\u01a6MAL)
    words = [w.casefold() for w in _LATIN_WORD.findall(text) if not w.isupper()]
    if first in _listed() and any(_zipf(w, first) >= _zipf_supported(w) + FOREIGN_ZIPF for w in words):
        return True
    if not any(_zipf_supported(w) == 0 for w in words):
        return False
    with _lock:
        ranked = _identifier().rank(text)
    p = next(float(q) for lang, q in ranked if lang == first)
    return p >= FOREIGN_SHORT * max(float(q) for lang, q in ranked if lang in SUPPORTED_LANGUAGES)


def _outranks_readers(text: str, first: str) -> bool:
    """Whether a short sentence whose first choice ``first`` has no rules is that language: a word
    says it is not one of the supported languages the detector finds plausible
    (:func:`_contradicted`), and ``first`` is :data:`OUTRANKS` times likelier than each of
    the others ("No ho sé.": Catalan 0.27, "ho" rare in Spanish, Italian 0.06 though every word is
    common Italian; "Non lo so.": Italian first)."""
    with _lock:
        ranked = [(str(lang), float(q)) for lang, q in _identifier().rank(text)]
    words = _ordinary_words(text)
    if len(words) < 2 or ranked[0][1] < UNSURE:
        return False  # one word, or a guess among many ("Avis : X.": Danish 0.03)
    lists = _lists_of(first)
    if lists and any(max(_zipf(w, lang) for lang in lists) < COMMON_ZIPF for w in words):
        return False  # "La PCR ce l'ho, la VES no.": "ce" is no common Catalan word
    against = {lang for lang in plausible(text) if not _contradicted(text, lang, first)}
    if len(against) == len(plausible(text)):
        return False
    p = ranked[0][1]
    return all(p >= OUTRANKS * q for lang, q in ranked if lang in against)


#: The languages of wordfreq's small lists written in Latin letters, the only ones a sentence read
#: here can be in (the others' lists also need tokenizers that are not installed: MeCab for
#: Japanese and Korean, jieba for Chinese)
_LATIN_LISTS = frozenset(
    [
        "ca",
        "cs",
        "da",
        "de",
        "en",
        "es",
        "fi",
        "fil",
        "fr",
        "hu",
        "id",
        "is",
        "it",
        "lt",
        "lv",
        "ms",
        "nb",
        "nl",
        "pl",
        "pt",
        "ro",
        "sh",
        "sk",
        "sl",
        "sv",
        "tr",
        "vi",
    ]
)


@cache
def _listed() -> frozenset[str]:
    from wordfreq import available_languages  # loaded on first use (0.2 s): a short sentence in doubt

    return frozenset(available_languages("small")) & _LATIN_LISTS


@cache
def _zipf(word: str, lang: str, wordlist: str = "small") -> float:
    """The word's Zipf frequency in ``lang``'s list (small or large); 0 when it cannot be read there."""
    from wordfreq import zipf_frequency

    try:
        return float(zipf_frequency(word, lang, wordlist=wordlist))
    except (ImportError, LookupError, ValueError):  # a list that needs a tokenizer not installed
        return 0.0


def _zipf_supported(word: str) -> float:
    return max(_zipf(word, lang) for lang in SUPPORTED_LANGUAGES)


def _far_likelier(text: str, p: float) -> bool:
    """Whether a language of probability ``p`` is :data:`FOREIGN` times likelier than every
    supported language on ``text``."""
    with _lock:
        ranked = _identifier().rank(text)
    best = max(float(q) for lang, q in ranked if lang in SUPPORTED_LANGUAGES)
    return p > FOREIGN * best


def plausible(text: str) -> frozenset[str]:
    """The supported languages whose rules read ``text``, too short to detect (see
    :data:`PLAUSIBLE`): all of them when it has no word to rank (``ELEVATED.``)."""
    rest = _NOT_WORDS.sub(" ", text)
    if not _LATIN_WORD.search(rest):
        return frozenset(SUPPORTED_LANGUAGES)
    with _lock:
        ranked = _identifier().rank(rest)
    scores = [(str(lang), float(p)) for lang, p in ranked if lang in SUPPORTED_LANGUAGES]
    best = max(p for _, p in scores)
    return frozenset(lang for lang, p in scores if p >= PLAUSIBLE * best)


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of an answer (offsets in the text detected) and its language (None: neutral,
    read by the rules of ``rules``)."""

    start: int
    end: int
    language: str | None
    rules: frozenset[str] = frozenset(SUPPORTED_LANGUAGES)

    @property
    def supported(self) -> bool:
        return self.language is None or self.language in SUPPORTED_LANGUAGES


@dataclass(frozen=True, slots=True)
class Languages:
    """The sentences of a text with their languages, and the language of the whole (None: neutral)."""

    sentences: tuple[Sentence, ...]
    overall: str | None
    #: the sentences' starts, once: :meth:`at` is asked for every label a long answer repeats
    _starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(s.start for s in self.sentences))

    def at(self, pos: int) -> Sentence:
        i = max(0, bisect.bisect_right(self._starts, pos) - 1)
        return self.sentences[i]

    def unsupported(self, start: int = 0, end: int | None = None) -> list[Sentence]:
        """Sentences overlapping ``[start, end)`` in a language without rules."""
        stop = end if end is not None else max((s.end for s in self.sentences), default=0)
        return [s for s in self.sentences if not s.supported and s.end > start and s.start < stop]

    @property
    def present(self) -> frozenset[str]:
        """The supported languages whose rules read this text (for a neutral sentence, its plausible ones)."""
        found = {s.language for s in self.sentences if s.language in SUPPORTED_LANGUAGES}
        for s in self.sentences:
            if s.language is None:
                found |= s.rules if self.overall is None else {self.overall}
        if not found:
            found = set(SUPPORTED_LANGUAGES) if self.overall is None else {self.overall}
        return frozenset(found & set(SUPPORTED_LANGUAGES))

    def rules_at(self, pos: int) -> frozenset[str]:
        """The languages whose rules read the sentence at ``pos``."""
        sentence = self.at(pos)
        lang = sentence.language
        if lang is None:
            return sentence.rules
        return frozenset({lang}) if lang in SUPPORTED_LANGUAGES else frozenset()


def describe(sentences: list[Sentence]) -> str:
    """``"ja"`` / ``"ja and ru"``: the languages of unsupported sentences, for a reason."""
    langs = list(dict.fromkeys(s.language or "?" for s in sentences))
    return " and ".join(langs) if len(langs) <= 2 else ", ".join(langs[:-1]) + " and " + langs[-1]


def supported_names() -> str:
    return ", ".join(LANGUAGE_NAMES[lang] for lang in SUPPORTED_LANGUAGES)


def _readable(ch: str) -> str:
    """One visible character as detection reads it: Latin letters as written (accents tell
    languages apart), anything else in canonical form (look-alike and full-width letters are the
    letters they imitate), always one character so offsets map back."""
    if ord(ch) < 0x250:
        return ch
    mapped = canonical_text(ch)
    return mapped if len(mapped) == 1 else ch


def languages(text: str) -> Languages:
    """The languages of ``text``'s sentences (see the module documentation); cached per text."""
    return _languages(text)


@text_cache(maxsize=1024, max_chars=4_000_000)
def _languages(original: str) -> Languages:
    # Detection reads the visible characters only: an invisible one (a zero-width space, a soft
    # hyphen, a control: the set the canonical form removes) inside a word would split it, and
    # "re\u200bmota i\u200bdea" reads as another language. Offsets are those of the text as
    # written: where[k] is the position in it of the k-th character read (then its length).
    if original.isascii() and _ASCII_CONTROLS.search(original) is None:
        text, where = original, None
    else:
        kept = [(i, ch) for i, ch in enumerate(original) if _visible(ch)]
        text = "".join(_readable(ch) for _, ch in kept)
        where = [i for i, _ in kept] + [len(original)]
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        day = _ORDINAL_DAY.search(text, max(0, m.start() - 2), m.end() + 16)
        if day is not None and day.start() < m.start() < day.end():  # "am 21. Juli": a day, no end
            continue
        if _NAME_POINT.search(text, max(0, m.start() - 6), m.end() + 3) is not None:
            continue  # "by M. Reyes", "Dr. Okafor": the name goes on ("Reyes." alone reads as Walloon)
        spans.append((start, m.end()))
        start = m.end()
    if start < len(text) or not spans:
        spans.append((start, len(text)))
    spans = [(s, e) for s, e in spans if text[s:e].strip()] or [(0, len(text))]
    if len(spans) == 1:
        overall = None if _short_row(text) else detect(text)
        found = [overall]
    else:
        rows = [_short_row(text[s:e]) for s, e in spans]
        found = [None if row else detect(text[s:e]) for (s, e), row in zip(spans, rows, strict=True)]
        # the whole answer is read only for the sentences too short to tell; the short rows of a
        # table take the language of its other words (its headers, the prose around it)
        words = "".join(text[s:e] for (s, e), row in zip(spans, rows, strict=True) if not row)
        overall = (detect(words if any(rows) and words.strip() else text)) if None in found else _most(found)
    # a sentence too short to tell: the plausible languages' rules (when the answer is too)
    rules = [
        plausible(text[s:e]) if lang is None else frozenset(SUPPORTED_LANGUAGES)
        for (s, e), lang in zip(spans, found, strict=True)
    ]
    if where is not None:
        spans = [(where[s], where[e]) for s, e in spans]
    sentences = [
        Sentence(s, e, lang if lang is not None else overall, r)
        for (s, e), lang, r in zip(spans, found, rules, strict=True)
    ]
    return Languages(tuple(sentences), overall)


def _most(found: list[str | None]) -> str | None:
    counts: dict[str, int] = {}
    for lang in found:
        if lang is not None:
            counts[lang] = counts.get(lang, 0) + 1
    return max(counts, key=lambda lang: counts[lang]) if counts else None
