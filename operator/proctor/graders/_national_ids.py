"""The catalogue of national identity numbers: every personal id python-stdnum validates by checksum.

Each :class:`IdNumber` names a python-stdnum module (its ``is_valid`` checks the format and the
check digits; its docstring names the number) and the words that lead to such a number in its
country's languages (``PESEL``, ``rodné číslo``, ``Steuer-ID``, ``numéro de sécurité sociale``).
A value right after one of those words (a few fillers aside: "PESEL nr:"), or after a qualifier
and a linking word ("Het BSN van de nieuwe collega is", "PESEL pacjentki:"; :func:`keyword_before`),
or after one word naming the person whose it is ("CNP student", "PESEL pacjenta": :data:`_OWNER_WORDS`),
is a finding when that module validates it; after a
general identity word in one of the supported languages ("national id", "identity number",
"numéro d'identité", "Ausweisnummer", "número de identidad"...) when any module of the
catalogue does. A number without a keyword is looked at only in the few formats distinctive
enough on their own (:attr:`IdNumber.shape`: a Brazilian CPF with its dots and dash, a Mexican
CURP, a Korean RRN, a Finnish HETU, a Swiss AHV number, a Belgian national number with its
separators); any other figure that passes a checksum by chance (an order number, a phone number,
a date) is not read as an id, because nothing says it is one.

Only numbers whose module checks a check digit are in the catalogue (the US SSN, whose rules are
structural, and the UK NINO and passport numbers, which stdnum does not know, are read by
:mod:`proctor.graders._pii` itself); a test holds every entry to that. One exception, marked
``check_digit=False``: the Danish CPR number, a birth date and a serial, after its own keywords
only (``CPR-nummeret er``): the keyword says what it is.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import ModuleType

from proctor.graders._canon import canonical_text

_SEPARATORS = re.compile(r"[\s./-]")


@dataclass(frozen=True)
class IdNumber:
    """One national identity number: its stdnum module, a short label, the words that lead to it.

    ``keywords`` are matched as whole words, ignoring case and accents, with any run of spaces
    where the keyword has one; an acronym that is also an ordinary word in some language (``CC``,
    ``NIT``, ``SIN``: :data:`_ALSO_WORDS`) matches only in capitals. ``shape`` is a pattern
    for the number written on its own, in a format distinctive enough to need no keyword (None:
    only after a keyword). ``general``: whether a general identity word ("identity number")
    leads to it too (False for a tax number that companies hold as well, or a short one: only its
    own keywords do). ``check_digit``: whether its module checks one (False only for a number whose
    own keyword says what it is, the Danish CPR: a birth date and a serial since 2007; such an entry
    is never general and has no shape, so nothing but its keyword makes a figure one).
    ``persons``: for a module that validates companies' numbers too (a VAT or tax number that is a
    natural person's personal code for a person: Latvia's PVN), the pattern a person's number, its
    separators off, matches; None: every number it validates is a person's."""

    module: str
    label: str
    keywords: tuple[str, ...]
    shape: str | None = None
    general: bool = True
    check_digit: bool = True
    persons: str | None = None

    @cached_property
    def stdnum(self) -> ModuleType:
        return importlib.import_module(f"stdnum.{self.module}")

    @property
    def name(self) -> str:
        """stdnum's own name of the number (its docstring's first line)."""
        return (self.stdnum.__doc__ or self.label).strip().splitlines()[0].rstrip(".")

    def is_valid(self, value: str) -> bool:
        """Whether stdnum validates ``value`` as written, or without its separators (some modules
        keep a separator that means something: a Swedish ``+`` for a centenarian)."""
        if self.persons is not None and not re.fullmatch(self.persons, _SEPARATORS.sub("", value)):
            return False
        try:
            return bool(self.stdnum.is_valid(value) or self.stdnum.is_valid(_SEPARATORS.sub("", value)))
        except Exception:  # a validator must not crash a scan
            return False


#: Every entry; the order is the order in which a general keyword tries them (the first that
#: validates names the finding).
CATALOGUE: tuple[IdNumber, ...] = (
    IdNumber("nl.bsn", "Dutch BSN", ("BSN", "burgerservicenummer", "sofinummer", "sofi-nummer")),
    IdNumber(
        "de.idnr",
        "German tax id",
        (
            "IdNr",
            "Steuer-ID",
            "Steuer-IdNr",
            "Steuer ID",
            "Steueridentifikationsnummer",
            "Steuer-Identifikationsnummer",
            "steuerliche Identifikationsnummer",
        ),
    ),
    IdNumber("pl.pesel", "Polish PESEL", ("PESEL", "numer PESEL")),
    IdNumber("in_.aadhaar", "Indian Aadhaar", ("Aadhaar", "Aadhar", "UIDAI", "आधार")),
    IdNumber("in_.vid", "Indian virtual id", ("VID", "Aadhaar virtual id", "virtual id")),
    IdNumber(
        "se.personnummer",
        "Swedish personnummer",
        # (Swedish drops a letter before its definite article, "personnumret": read by _stems)
        ("personnummer", "personnr", "samordningsnummer"),
    ),
    IdNumber(
        "no.fodselsnummer", "Norwegian fødselsnummer", ("fødselsnummer", "fodselsnummer", "personnummer")
    ),
    IdNumber(
        "dk.cpr",
        "Danish CPR number",
        ("CPR", "CPR-nummer", "CPR-nr", "CPR nummer", "CPR nr"),
        general=False,
        check_digit=False,
    ),
    IdNumber(
        "fi.hetu",
        "Finnish HETU",
        # (the stem a possessive or a case ending is glued to: "henkilötunnukseni", "henkilötunnuksesi")
        ("HETU", "henkilötunnus", "henkilotunnus", "henkilötunnuksen", "personbeteckning"),
        (r"(?<![\w-])(?:0[1-9]|[12]\d|3[01])(?:0[1-9]|1[0-2])\d{2}[-+A-FU-Y]\d{3}[0-9A-FHJ-NPR-Y](?![\w-])"),
    ),
    IdNumber("ee.ik", "Estonian isikukood", ("isikukood", "isikukoodi")),
    IdNumber("lt.asmens", "Lithuanian asmens kodas", ("asmens kodas", "asmens kodą")),
    # (python-stdnum checks it only as a PVN, the VAT number, which is a person's personas kods for
    # a natural person: a date and a serial, or since 2017 "32" and nine digits; a company's starts
    # with 4 to 9)
    IdNumber(
        "lv.pvn",
        "Latvian personas kods",
        ("personas kods", "personas kodu", "personas koda", "personas kodam", "personas kodā"),
        persons=r"(?:LV)?[0-3]\d{10}",
    ),
    IdNumber("cz.rc", "Czech birth number", ("RČ", "rodné číslo", "rodne cislo", "rodného čísla")),
    IdNumber("sk.rc", "Slovak birth number", ("RČ", "rodné číslo", "rodne cislo", "rodného čísla")),
    IdNumber("ro.cnp", "Romanian CNP", ("CNP", "cod numeric personal", "codul numeric personal")),
    IdNumber("bg.egn", "Bulgarian EGN", ("EGN", "ЕГН")),
    IdNumber("bg.pnf", "Bulgarian PNF", ("PNF", "ЛНЧ")),
    IdNumber("hr.oib", "Croatian OIB", ("OIB", "osobni identifikacijski broj")),
    IdNumber("si.emso", "Slovenian EMŠO", ("EMŠO", "EMSO", "enotna matična številka")),
    IdNumber("gr.amka", "Greek AMKA", ("AMKA", "\u0391\u039c\u039a\u0391")),  # the second in Greek letters
    IdNumber(
        "tr.tckimlik",
        "Turkish TC Kimlik",
        ("TC Kimlik", "T.C. Kimlik", "TCKN", "kimlik numaras\u0131", "kimlik no"),
    ),
    IdNumber(
        "at.vnr",
        "Austrian social security number",
        (
            "VNR",
            "SVNR",
            "VSNR",
            "SV-Nummer",
            "Versicherungsnummer",
            "Sozialversicherungsnummer",
        ),
    ),
    IdNumber(
        "ch.ssn",
        "Swiss AHV number",
        (
            "AHV",
            "AVS",
            "AHV-Nummer",
            "AHVN13",
            "numéro AVS",
            "Sozialversicherungsnummer",
        ),
        r"(?<![\w.-])756\.\d{4}\.\d{4}\.\d{2}(?![\w-]|[.,]\d)",
    ),
    IdNumber(
        "be.nn",
        "Belgian national number",
        (
            "NN",
            "NISS",
            "INSZ",
            "RRN",
            "rijksregisternummer",
            "numéro de registre national",
            "registre national",
        ),
        r"(?<![\w.-])\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}(?![\w-]|[.,]\d)",
    ),
    IdNumber("be.bis", "Belgian BIS number", ("BIS", "numéro BIS", "bisnummer", "NISS", "INSZ")),
    IdNumber(
        "fr.nir",
        "French NIR",
        (
            "NIR",
            "numéro de sécurité sociale",
            "sécurité sociale",
            "numéro INSEE",
            "carte vitale",
        ),
    ),
    IdNumber("es.dni", "Spanish DNI", ("DNI", "NIF", "documento nacional de identidad")),
    IdNumber("es.nie", "Spanish NIE", ("NIE", "NIF", "número de identidad de extranjero")),
    IdNumber(
        "pt.cc",
        "Portuguese citizen card",
        ("CC", "cartão de cidadão", "cartao de cidadao", "cartão do cidadão"),
    ),
    IdNumber("ie.pps", "Irish PPS number", ("PPS", "PPSN", "PPS number", "personal public service number")),
    IdNumber("gb.nhs", "UK NHS number", ("NHS number", "NHS no")),
    IdNumber(
        "ca.sin", "Canadian SIN", ("SIN", "social insurance number", "numéro d'assurance sociale", "NAS")
    ),
    IdNumber("au.tfn", "Australian TFN", ("TFN", "tax file number")),
    IdNumber("nz.ird", "New Zealand IRD number", ("IRD", "IRD number")),
    IdNumber("us.itin", "US ITIN", ("ITIN",)),
    IdNumber(
        "br.cpf",
        "Brazilian CPF",
        ("CPF", "cadastro de pessoas físicas"),
        (r"(?<![\w.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\w-]|[.,]\d)"),
    ),
    IdNumber("ar.cuit", "Argentinian CUIT/CUIL", ("CUIT", "CUIL")),
    # (a natural person's RUC: 10 and the DNI, 15 or 17 and another serial, and a check digit; a
    # company's starts with 20)
    IdNumber(
        "pe.ruc", "Peruvian RUC of a person", ("RUC", "número de RUC"), general=False, persons=r"1[057]\d{9}"
    ),
    IdNumber("cl.rut", "Chilean RUT", ("RUT", "RUN", "rol único tributario", "rol único nacional")),
    IdNumber("co.nit", "Colombian NIT", ("NIT",)),
    IdNumber("ec.ci", "Ecuadorian cédula", ("cédula", "cedula", "cédula de identidad")),
    IdNumber("do.cedula", "Dominican cédula", ("cédula", "cedula", "cédula de identidad")),
    IdNumber(
        "mx.curp",
        "Mexican CURP",
        ("CURP",),
        (
            r"(?<![\w-])[A-Z][AEIOUX][A-Z]{2}\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[HM][A-Z]{2}"
            r"[B-DF-HJ-NP-TV-Z]{3}[0-9A-Z]\d(?![\w-])"
        ),
    ),
    IdNumber(
        "cn.ric", "Chinese resident id", ("身份证", "身份证号", "居民身份证", "resident identity card", "RIC")
    ),
    IdNumber(
        "kr.rrn",
        "Korean RRN",
        ("RRN", "주민등록번호", "resident registration number"),
        (r"(?<![\w-])\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-\d{7}(?![\w-]|[.,]\d)"),
    ),
    IdNumber("jp.in_", "Japanese My Number", ("My Number", "マイナンバー", "個人番号", "kojin bango")),
    IdNumber(
        "il.idnr", "Israeli identity number", ("teudat zehut", "mispar zehut", "מספר זהות", "Israeli ID")
    ),
    IdNumber("th.pin", "Thai personal id", ("เลขประจำตัวประชาชน", "Thai ID")),
    IdNumber("ru.inn", "Russian INN", ("INN", "ИНН")),
    IdNumber("ua.rntrc", "Ukrainian RNTRC", ("РНОКПП", "ІПН", "RNTRC")),
    IdNumber("za.idnr", "South African id number", ("SA ID", "South African ID")),
    # personal tax numbers and other personal numbers with a check digit
    IdNumber(
        "pt.nif",
        "Portuguese NIF",
        (
            "NIF",
            "número de identificação fiscal",
            "número fiscal",
            "número de contribuinte",
            "contribuinte",
        ),
    ),
    IdNumber(
        "fr.nif",
        "French tax number",
        ("NIF", "numéro fiscal", "numéro fiscal de référence", "numéro d'immatriculation fiscale", "SPI"),
    ),
    IdNumber("gb.utr", "UK UTR", ("UTR", "unique taxpayer reference"), general=False),
    IdNumber("gb.upn", "English unique pupil number", ("UPN", "unique pupil number")),
    IdNumber("is_.kennitala", "Icelandic kennitala", ("kennitala", "kennitölu", "kennitolu")),
    IdNumber("ca.bc_phn", "British Columbia PHN", ("PHN", "BC PHN", "personal health number")),
    IdNumber("nl.onderwijsnummer", "Dutch onderwijsnummer", ("onderwijsnummer",)),
    IdNumber(
        "be.eid",
        "Belgian eID card number",
        ("eID number", "eID-nummer", "eID-kaartnummer", "numéro de carte eID"),
    ),
    IdNumber("at.tin", "Austrian tax number", ("Abgabenkontonummer", "Steuernummer"), general=False),
    IdNumber("mx.rfc", "Mexican RFC", ("RFC", "registro federal de contribuyentes"), general=False),
    IdNumber("in_.epic", "Indian voter id", ("EPIC", "EPIC number", "voter id", "voter ID number")),
    IdNumber("sv.nit", "Salvadoran NIT", ("NIT",), general=False),
    IdNumber("ve.rif", "Venezuelan RIF", ("RIF", "registro de información fiscal"), general=False),
    IdNumber("gh.tin", "Ghanaian TIN", ("TIN", "Ghana TIN", "Ghana Card number"), general=False),
)

#: Words that say "an identity number follows" without naming a country, in the languages the
#: graders support: a value after one is a finding when any entry of the catalogue validates it.
GENERAL_KEYWORDS: tuple[str, ...] = (
    # English
    "national id",
    "national identity number",
    "national identification number",
    "national number",
    "identity number",
    "identification number",
    "identity card number",
    "id card number",
    "personal id",
    "personal identity number",
    "personal identification number",
    "personal number",
    "personal code",
    "citizen id",
    "citizen number",
    "social security number",
    "social security no",
    "social security",
    # French
    "numéro d'identité",
    "numéro d'identification",
    "numéro de carte d'identité",
    "carte d'identité",
    "numéro national",
    "numéro personnel",
    # German
    "Personalausweisnummer",
    "Ausweisnummer",
    "Identifikationsnummer",
    "Personenkennzahl",
    "Personenkennziffer",
    "persönliche Kennnummer",
    # Spanish
    "número de identidad",
    "número de identificación",
    "documento de identidad",
    "número personal",
    "número de documento",
    # Portuguese
    "número de identificação",
    "documento de identidade",
    "bilhete de identidade",
    "número de identidade",
    # Italian
    "numero di identificazione",
    "carta d'identità",
    "numero della carta d'identità",
    "codice identificativo",
    "numero identificativo",
    # Dutch
    "identificatienummer",
    "persoonsnummer",
    "persoonlijk nummer",
    "identiteitsnummer",
)


#: Acronym keywords that are also ordinary words in some language ("sin", "run", "cc", Polish
#: "nie" and "dni", German "bis", Swedish "vid"): they count only in capitals. Every other keyword,
#: acronyms included (``bsn``, ``pesel``, ``curp``), counts in any case.
_ALSO_WORDS = frozenset(
    {
        *("sin", "cc", "nie", "dni", "run", "bis", "inn", "nit", "rut", "nn", "rc", "vid", "nas", "ric"),
        *("ird", "epic", "spi", "rif", "upn", "phn", "tin", "cpr"),
    }
)


def _is_acronym(keyword: str) -> bool:
    return keyword.lower() in _ALSO_WORDS and keyword.upper() == keyword


def _key(words: str) -> str:
    """Words as the lookup keys them: lower case, single spaces (the scanned text is canonical
    already; the keywords are made so once, by :func:`_build_lookup`)."""
    return " ".join(words.lower().split())


def _build_lookup() -> dict[str, tuple[tuple[IdNumber, ...], bool]]:
    """Keyword (lower case, single spaces) -> (the entries it leads to, whether it is only an
    acronym: then it counts only written in capitals)."""
    entries: dict[str, list[IdNumber]] = {}
    acronym: dict[str, bool] = {}
    for kw, targets in (
        *((kw, (e,)) for e in CATALOGUE for kw in e.keywords),
        *((kw, tuple(e for e in CATALOGUE if e.general)) for kw in GENERAL_KEYWORDS),
    ):
        kw = canonical_text(kw)  # accents off, look-alike letters mapped, as the scan reads the text
        key = _key(kw)
        found = entries.setdefault(key, [])
        found.extend(t for t in targets if t not in found)
        acronym[key] = acronym.get(key, True) and _is_acronym(kw)
    return {k: (tuple(v), acronym[k]) for k, v in entries.items()}


_LOOKUP = _build_lookup()
_GENERAL_KEYS = frozenset(_key(canonical_text(kw)) for kw in GENERAL_KEYWORDS)
#: the last word of each keyword -> the most words a keyword ending in it has: a word that ends
#: no keyword is passed over without joining the words before it
_LAST_WORDS: dict[str, int] = {}
for _k in _LOOKUP:
    _LAST_WORDS[_k.split()[-1]] = max(_LAST_WORDS.get(_k.split()[-1], 0), len(_k.split()))

#: Endings the catalogue's languages glue to a noun (lower case, as the canonical text writes them:
#: no accents, Turkish dotless i as "i"): Scandinavian definite articles and genitive ("fødselsnummeret",
#: "kennitalan", "personnummerets"), German and Dutch inflection ("-s", "-es", "-n", "-e"), Turkish
#: possessives and cases ("numaraniz", "numarasini", "numaram"), Finnish possessives
#: ("henkilötunnukseni"), Romanian articles ("-ul", "-ului"). A word is read as a keyword's word
#: when the two are the same once one such ending (or two: "numaranizi") is taken off either
_GLUED_SET = frozenset(
    {
        *("et", "en", "a", "ene", "ets", "ens", "s", "es", "n", "e", "er", "ern"),
        *("i", "u", "si", "su", "m", "ni", "nu", "niz", "nuz", "miz", "muz", "in", "un", "nin", "nun"),
        *("yi", "yu", "da", "de", "ta", "te", "dan", "den", "ya", "ye", "na", "ne", "yla", "yle"),
        *("nsa", "mme", "nne", "ul", "ului", "lui"),
        # Estonian cases ("isikukoodiga", "isikukoodile", "isikukoodist"), Icelandic articles
        # and cases ("kennitölunnar", "kennitölunni"), Scandinavian plurals ("fødselsnumre")
        *("ga", "le", "lt", "st", "ks", "d", "nar", "inn", "ins", "nni", "re", "rne", "rene"),
    }
)
_LONGEST_GLUED = max(map(len, _GLUED_SET))
#: what must be left of a word once an ending is taken off (an acronym takes its endings after a
#: hyphen or an apostrophe: "CNP-ul", "TCKN'niz", "PESEL-u")
_MIN_STEM = 5
#: after a hyphen or an apostrophe: an ending of at most this many letters
_MAX_SEPARATED_ENDING = 5
_LETTERS = re.compile(r"[^\W\d_]+")


#: Scandinavian "nummer" drops its "e" before an ending ("personnumret", "fødselsnumrene", "CPR-numre")
_NUMR = re.compile(r"numr(?=[a-z]*$)")


def _stems(word: str) -> list[str]:
    """``word`` (lower case) and what is left of it without one glued ending, or two; the longest
    first (the word as written is preferred to a shorter reading of it)."""
    found = dict.fromkeys([word, _NUMR.sub("nummer", word)] if "numr" in word else [word])
    for _ in range(2):
        for w in tuple(found):
            for stem in _without_ending(w, _GLUED_SET, _LONGEST_GLUED, _MIN_STEM):
                found[stem] = None
    return sorted(found, key=len, reverse=True)


def _without_ending(word: str, endings: frozenset[str], longest: int, least: int) -> Iterator[str]:
    """What is left of ``word`` without one of ``endings``, ``least`` letters or more: one look-up
    a length of ending, not one a word of the table."""
    for n in range(1, min(longest, len(word) - least) + 1):
        if word[-n:] in endings:
            yield word[:-n]


#: a stem -> the keywords' words it is a stem of
_BY_STEM: dict[str, set[str]] = {}
for _word in {w for _k in _LOOKUP for w in _k.split()}:
    for _stem in _stems(_word):
        _BY_STEM.setdefault(_stem, set()).add(_word)


#: Case endings of the Slavic and Baltic languages the catalogue lists (Czech, Slovak, Polish,
#: Croatian, Slovenian, Lithuanian, Latvian), which decline every word of a keyword phrase
#: (``rodným číslem``, ``rodnom čísle``, ``asmens kodo``, ``osobnog identifikacijskog broja``,
#: ``enotno matično številko``, ``personas kodu``) down to short stems: taken off a word of a
#: keyword of several words only (none that is a keyword alone), leaving three letters or more.
#: The whole phrase must still be read, every word of it, so no single word is read by them
_PHRASE_SET = frozenset(
    {
        *("a", "e", "i", "o", "u", "y", "s", "as", "os", "us", "is", "om", "em", "ym", "im", "og"),
        *("ega", "emu", "eho", "ho", "mu", "ou", "ui", "oj", "ej", "ka", "ko", "ke", "ki", "ku"),
    }
)
_MIN_PHRASE_STEM = 3
_LONGEST_PHRASE_ENDING = max(map(len, _PHRASE_SET))


def _phrase_stems(word: str) -> list[str]:
    """``word`` (lower case) and what is left of it without one case ending (:data:`_PHRASE_SET`)."""
    return [word, *_without_ending(word, _PHRASE_SET, _LONGEST_PHRASE_ENDING, _MIN_PHRASE_STEM)]


#: a stem -> the words of keywords of several words it is a stem of (by :func:`_phrase_stems`)
_BY_PHRASE_STEM: dict[str, set[str]] = {}
for _word in {w for _k in _LOOKUP if " " in _k for w in _k.split()} - set(_LOOKUP):
    for _stem in _phrase_stems(_word):
        _BY_PHRASE_STEM.setdefault(_stem, set()).add(_word)


@lru_cache(maxsize=8192)  # (a text's words repeat: "the", "is", a name)
def _as_keyword_word(token: str) -> tuple[str, ...]:
    """The keywords' words ``token`` is read as, each as written when it is the token or its head
    (so an acronym keeps its capitals): itself; a word that ends differently in its language
    (:data:`_GLUED_SET`); the head of ``head-ending`` or ``head'ending`` ("CNP-ul", "CNP-ului",
    "TCKN'niz", "PESEL-u", and a number word glued: ``BSN-nummer``, ``PESEL-numer``)."""
    low = token.lower()
    found: dict[str, str] = {}
    if low in _BY_STEM and low in _BY_STEM[low]:
        found[low] = token
    for sep in "-'":
        head, _, tail = token.rpartition(sep)
        if (
            head
            and tail
            and (
                (_LETTERS.fullmatch(tail) and len(tail) <= _MAX_SEPARATED_ENDING)
                or any(_NUMBER_SUFFIX.fullmatch(t) for t in _stems(tail.lower()))
            )
        ):
            for word in _as_keyword_word(head):
                found.setdefault(word.lower(), word)
    if len(low) == len(token):
        for stem in _stems(low):
            for word in sorted(_BY_STEM.get(stem, ())):
                found.setdefault(word, token[: len(word)] if word == stem and low.startswith(stem) else word)
        for stem in _phrase_stems(low):
            for word in sorted(_BY_PHRASE_STEM.get(stem, ())):
                found.setdefault(word, word)
    if token.endswith(".") and len(token) > 1:  # an abbreviation's point ("CPR-nr.")
        for word in _as_keyword_word(token[:-1]):
            found.setdefault(word.lower(), word)
    return tuple(found.values())


#: how far before a value its keyword (and the few words between them) may start
_LOOK_BEHIND = 96
#: a word before a value, or one of the marks between a keyword and its value; a URL's separators
#: (``?``, ``&``, ``/``, ``;``, ``,``) end a word as a space does, so ``?bsn=111222333&`` has its keyword
_TOKEN = re.compile(r"[^\s:#=()\[\]?&/;,]+|[:#=]")
#: words and marks that may stand between a keyword and its value ("PESEL nr:", "SSN is",
#: "numéro de sécurité sociale n° :"), at most :data:`_MAX_FILLERS` of them
_FILLER_WORDS = (
    ": # = - is was are number no no. num num. nr nr. n° nº n.º núm núm. numero número numéro nummer"
    " of est ist es e é è lautet"
    # possessives and articles ("o CPF dele é", "sein PESEL", "son NIR est")
    " his her their its dele dela del de do da du des der die das sein seine ihr ihre son sa su"
    " suo sua zijn haar hun"
)
#: Linking words: a copula or a mark that ends what is said about a number and hands over its value
#: ("is", "ist", "lautet", "est", "es", "é", "è", Polish "to" and "jest", Swedish "är", Danish and
#: Norwegian "er", Finnish "on", Romanian "este", Czech and Croatian "je", ``:`` and ``=``), or
#: "as" and its kin that name what a number is kept as ("your SIN on file as", "Ihre Steuer-ID ist
#: gespeichert als", "som", "comme", "como", "come", "jako"); a filler too ("personnummer är")
_LINK_WORDS = (
    ": = is was are ist lautet lauten war est était es era fue é e è era foi são to jest był była"
    " är var er on oli este je zijn yra ir"
    " as als comme como come jako som"
)
_LINKS = frozenset(canonical_text(w).lower() for w in _LINK_WORDS.split())
_FILLERS = frozenset(canonical_text(w).lower() for w in _FILLER_WORDS.split()) | _LINKS
_MAX_FILLERS = 3
#: Words a qualifier between a country's keyword and its linking word may have, at most (``Het BSN
#: van de nieuwe medewerker is``, ``O NIF do trabalhador, para o recibo de vencimento, é``); a
#: general identity word takes at most :data:`_MAX_GENERAL_QUALIFIER` (it leads to any entry)
_MAX_QUALIFIER = 8
_MAX_GENERAL_QUALIFIER = 3
#: A qualifier word: letters (an apostrophe or hyphen inside: ``l'employé``, ``e-mail``)
_QUALIFIER_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
#: Words that end a qualifier: another kind of number is named ("the BSN of the order number"), a
#: conjunction joins another thing, a negation says the value is not the id
_QUALIFIER_STOP_WORDS = (
    # other numbers, in the supported languages
    "order orders invoice ticket reference ref case tracking item sku serial account"
    " phone telephone mobile fax iban card code pin password contract policy booking"
    " pedido factura referencia cuenta tarjeta telefono movil contrato poliza"
    " encomenda fatura conta cartao telemovel"
    " commande facture compte carte portable contrat"
    " bestellung rechnung konto karte handy vertrag"
    " ordine fattura conto carta cellulare contratto"
    " bestelling factuur rekening telefoon mobiel"
    " zamowienie zamowienia faktura faktury konto karta telefon telefonu umowa"
    " order faktura kort konto avtal telefon mobil"
    # conjunctions and negations
    " nr num and or but not und oder aber nicht kein keine et ou mais pas ne ni y pero no nao"
    " e ma non en maar niet geen i oraz lub ale nie och eller men inte og ikke ja tai ei"
)
_QUALIFIER_STOPS = frozenset(canonical_text(w).lower() for w in _QUALIFIER_STOP_WORDS.split())
#: Words that name a company, whose tax number a keyword's qualifier then says it is (``NIF da
#: empresa:``, ``Steuer-ID der Firma``, ``numéro fiscal de la société :``): no person's id. (The phone
#: rule reads the same qualifier as a taxpayer's number too, so neither reports it.)
_COMPANY_WORDS = (
    "company firm business corporation enterprise entity"
    " empresa sociedad sociedade companhia compania entidad entidade firma"
    " entreprise societe compagnie"
    " unternehmen unternehmens firma gesellschaft"
    " azienda societa ditta impresa"
    " bedrijf onderneming vennootschap"
    " spółki firmy przedsiebiorstwa"
    " foretaget foretagets bolaget bolagets selskabet selskabets selskapet selskapets yrityksen"
    " spolecnosti spolocnosti societatii firmei sirketin"
)
_COMPANIES = frozenset(canonical_text(w).lower() for w in _COMPANY_WORDS.split())
#: Words that name a person whose id it is, standing alone between a keyword and its value, without
#: a linking word (``CNP student 1800101221144``, ``BSN medewerker 111222333``, ``PESEL pacjenta
#: 44051401359``, ``NIF trabajador 12345678Z``), by language, with the endings a genitive or an
#: article glues on where the language says whose so (Polish ``pacjenta``, Romanian ``angajatului``,
#: Swedish ``kundens``); canonical spelling (no diacritics on ASCII letters). Only one such word,
#: and only a person's: ``CNP student count``, ``BSN order`` lead to nothing
_OWNER_WORDS = (
    # English
    "student employee staff worker patient client customer member applicant candidate user holder"
    " owner tenant child person citizen resident pupil spouse partner beneficiary insured contractor"
    # Romanian
    " studentul studentului studenta studentei angajat angajatul angajatului angajata angajatei"
    " salariat salariatul salariatului pacient pacientul pacientului pacienta pacientei clientul"
    " clientului elev elevul elevului titular titularul titularului copil copilul copilului"
    " persoana persoanei solicitant solicitantului beneficiar beneficiarului"
    # Dutch
    " medewerker werknemer leerling klant kandidaat huurder deelnemer aanvrager burger kind"
    # Polish
    " pacjenta pacjentki pracownika pracownicy klienta klientki studenta studentki ucznia uczennicy"
    " osoby dziecka wnioskodawcy ubezpieczonego ubezpieczonej najemcy obywatela"
    # Spanish, Portuguese
    " trabajador trabajadora empleado empleada paciente cliente alumno alumna estudiante solicitante"
    " inquilino socio ciudadano trabalhador trabalhadora funcionario funcionaria empregado empregada"
    " aluno aluna requerente cidadao"
    # French
    " salarie salariee employe employee patiente cliente etudiant etudiante eleve assure assuree"
    " titulaire demandeur locataire adherent"
    # German
    " mitarbeiter mitarbeiterin mitarbeiters arbeitnehmer arbeitnehmers patienten patientin kunde"
    " kunden kundin studenten studentin schuler schulers antragsteller versicherten mieter"
    # Italian
    " dipendente lavoratore lavoratrice studente studentessa alunno titolare richiedente assicurato"
    # Swedish, Danish, Norwegian
    " anstalld anstallds patientens kund kundens studentens elevens medarbetare sokande medarbejder"
    " medarbejderens ansat ansatt ansattes pasient pasientens kundes studerende"
    # Finnish, Czech, Slovak, Turkish, Hungarian
    " tyontekijan potilaan asiakkaan opiskelijan oppilaan hakijan zamestnance pacienta zaka"
    " ogrenci ogrencinin calisan calisanin hasta hastanin musteri musterinin munkavallalo beteg"
    " hallgato"
    # the parties of a claim, an estate, a loan, a family or a trip, in the languages above (an
    # insurer's, a court's or a registry's forms name them so: "PESEL poszkodowanego ...")
    " claimant victim deceased policyholder debtor borrower heir witness guardian parent mother father"
    " driver passenger donor recipient retiree pensioner minor subscriber landlord"
    " poszkodowanego poszkodowanej zmarłego zmarłej ubezpieczającego właściciela właścicielki kierowcy"
    " pasażera świadka sprawcy dłużnika kredytobiorcy pożyczkobiorcy spadkobiercy opiekuna rodzica"
    " matki ojca małżonka małżonki emeryta rencisty noworodka małoletniego dawcy biorcy podatnika"
    " beneficjenta"
    " decedatului asiguratului proprietarului șoferului martorului debitorului părintelui mamei tatălui"
    " soțului soției pensionarului minorului victimei"
    " verzekerde slachtoffer overledene eigenaar bestuurder getuige schuldenaar ouder moeder vader"
    " gepensioneerde minderjarige nabestaande erfgenaam verzekeringnemer"
    " asegurado asegurada perjudicado perjudicada fallecido fallecida propietario propietaria conductor"
    " testigo deudor heredero tutor padre madre cónyuge beneficiario menor jubilado pensionista víctima"
    " tomador segurado segurada lesado lesada falecido falecida proprietário condutor testemunha"
    " devedor herdeiro pai mãe beneficiário aposentado reformado vítima"
    " victime défunt défunte propriétaire conducteur témoin débiteur héritier tuteur père mère conjoint"
    " bénéficiaire mineur retraité souscripteur"
    " versicherter geschädigten geschädigte verstorbenen verstorbene eigentümers halters fahrers"
    " zeugen schuldners erben vormunds vaters mutter ehegatten begünstigten minderjährigen rentners opfers"
    " danneggiato danneggiata defunto defunta proprietario conducente testimone debitore erede tutore"
    " genitore coniuge beneficiario minore pensionato vittima contraente"
    # the parties of a lease, a sale or a surety, and more Czech, Slovak, Polish and German persons
    # in the nominative and the genitive (``rodné číslo nájomcu``, ``PESEL wynajmującego``,
    # ``Steuer-ID Vermieters``)
    " lessee lessor guarantor buyer seller purchaser"
    " najomca najomcu prenajimatel prenajimatela rucitel rucitela kupujuci kupujuceho predavajuci"
    " predavajuceho zamestnanec zamestnanca pacient klient klienta ziadatel ziadatela dieta dietata"
    " student studenta vlastnik vlastnika dlznik dlznika poistenec poistenca poisteny poisteneho"
    " dedic dedica svedok svedka vodic vodica zosnuly zosnuleho osoba obcan obcana ziak ziaka"
    " manzel manzela manzelka manzelky otec otca matka matky najomnik najomnika"
    " najemce pronajimatel pronajimatele rucitel rucitele kupujici kupujiciho prodavajici"
    " prodavajiciho zamestnance zadatel zadatele dite ditete pojistenec pojistence pojisteny"
    " pojisteneho dedice svedek ridic ridice zemrely zemreleho zak zaka otce najemnik najemnika"
    " wynajmujacego poreczyciela kupujacego sprzedajacego najemca wynajmujacy poreczyciel"
    " mieters vermieter vermieters vermieterin mieterin burge burgen kaufer kaufers kauferin"
    " verkaufer verkaufers verkauferin kindes antragstellers versicherungsnehmers"
    " verhuurder borg borgsteller koper verkoper"
    " arrendador arrendadora arrendatario arrendataria avalista fiador fiadora comprador compradora"
    " vendedor vendedora senhorio senhoria arrendatario"
    " bailleur garant garante acheteur acheteuse vendeur vendeuse"
    " locatore locatario conduttore inquilina acquirente venditore"
)
_OWNERS = frozenset(canonical_text(w).lower() for w in _OWNER_WORDS.split())
#: a word that names a number of its own (``Bestellnummer``, ``telefoonnummer``, ``numer``)
_NUMBER_WORD = re.compile(r"(?i)(?:nummer|number|numer|numero)$")
#: a number word glued to a keyword (``BSN-nummer``, ``PESEL-nr``)
_NUMBER_SUFFIX = re.compile(r"(?i)nummer|number|numer|numero|nr|no")
#: Blanks on one line, at least one
_BLANKS = re.compile(r"[ \t]+")
#: What may stand between two words of a qualifier: blanks, a comma
_QUALIFIER_GAP = re.compile(r"[ \t]*,?[ \t]*")


#: the value: letters and digits with single spaces, dots, slashes or hyphens between them
_VALUE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|[ ./-](?=[A-Za-z0-9])){5,24}(?![\w-])")


def entries_for(keyword: str) -> tuple[IdNumber, ...]:
    """The entries a keyword, as written in the text, leads to (none: not a keyword, or an
    acronym not written in capitals)."""
    found = _LOOKUP.get(_key(keyword))
    if found is None or (found[1] and not _is_acronym(keyword)):
        return ()
    return found[0]


def _keyword_ending(tokens: list[str]) -> str | None:
    """The catalogue keyword the tokens end with (the longest), as written; a keyword with an
    ending of its language counts as the keyword (``Fødselsnummeret``, ``CNP-ul``, ``kimlik
    numaraniz``, ``BSN-nummer``: :func:`_as_keyword_word`)."""
    if not tokens:
        return None
    last = _as_keyword_word(tokens[-1])
    most = max((_LAST_WORDS.get(w.lower(), 0) for w in last), default=0)
    for k in range(min(most, len(tokens)), 0, -1):
        words = [_as_keyword_word(t) for t in tokens[-k:-1]]
        for candidate in _phrases([*words, last]):
            if entries_for(candidate):
                return candidate
    return None


def _phrases(words: list[tuple[str, ...]]) -> Iterator[str]:
    """Every phrase of one reading of each word (each word has a reading or two)."""
    if not words:
        yield ""
        return
    for rest in _phrases(words[1:]):
        for word in words[0]:
            yield f"{word} {rest}" if rest else word


def _is_general(keyword: str) -> bool:
    return _key(canonical_text(keyword)) in _GENERAL_KEYS


def keyword_before(text: str, start: int) -> str | None:
    """The catalogue keyword that ends just before ``text[start:]`` (a few filler words and marks
    aside), as written; None if there is none. Read backwards word by word, so it costs the same
    however many keywords the catalogue has.

    Or the grammar of a sentence that names whose id it is: keyword, a qualifier of a few words
    (``Het BSN van de nieuwe medewerker``, ``PESEL pracownika``, at most :data:`_MAX_QUALIFIER`,
    none naming another number, no sentence end between them), a linking word (``is``, ``to``,
    ``är``, ``:``), the value."""
    tokens = _TOKEN.findall(text, max(0, start - _LOOK_BEHIND), start)
    linked = bool(tokens) and tokens[-1].lower() in _LINKS
    owned = not linked and bool(tokens) and _owner_word(tokens[-1]) in _OWNERS
    for _ in range(_MAX_FILLERS + 1):
        found = _keyword_ending(tokens)
        if found is not None:
            return found
        if not tokens or tokens[-1].lower() not in _FILLERS:
            break
        tokens.pop()
    if linked:
        return _keyword_before_qualifier(text, start)
    return _keyword_before_owner(text, start) if owned else None


def _owner_word(token: str) -> str:
    """A token as a person's word is looked up: in small letters, without an English possessive's
    ``'s`` (``employee's``)."""
    word = token.lower()
    return word[: word.rindex("'")] if word.endswith(("'s", "'")) else word


def _keyword_before_owner(text: str, start: int) -> str | None:
    """The keyword of ``keyword owner value``: one word naming the person whose id it is between
    them, no linking word (``CNP student 1800101221144``, ``PESEL pacjenta ...``: :data:`_OWNERS`),
    only blanks around it; not after a general identity word, which leads to any entry."""
    spans = [m.span() for m in _TOKEN.finditer(text, max(0, start - _LOOK_BEHIND), start)]
    if len(spans) < 2:
        return None
    (a, b), (_, before) = spans[-1], spans[-2]
    if (
        _owner_word(text[a:b]) not in _OWNERS
        or not _BLANKS.fullmatch(text, b, start)
        or not _BLANKS.fullmatch(text, before, a)
    ):
        return None
    found = _keyword_ending([text[x:y] for x, y in spans[:-1]])
    return None if found is None or _is_general(found) else found


def _keyword_before_qualifier(
    text: str, start: int, ending: Callable[[list[str]], str | None] = _keyword_ending
) -> str | None:
    """The keyword of ``keyword qualifier link value`` (see :func:`keyword_before`), or None;
    ``ending``: the keyword a list of tokens ends with (the catalogue's, or another table's:
    :func:`qualified_keyword_before`)."""
    spans = [m.span() for m in _TOKEN.finditer(text, max(0, start - _LOOK_BEHIND), start)]
    tokens = [text[a:b] for a, b in spans]
    links = 0
    while tokens and links < 2 and tokens[-1].lower() in _LINKS:
        tokens.pop()
        links += 1
    if not links:
        return None
    for words in range(1, _MAX_QUALIFIER + 1):
        if len(tokens) <= words:
            return None
        word = tokens[-words]
        a, b = spans[len(tokens) - words]
        after = spans[len(tokens) - words + 1][0]
        if (
            not _QUALIFIER_WORD.fullmatch(word)
            or word.lower() in _QUALIFIER_STOPS
            or _NUMBER_WORD.search(word)
            or not _QUALIFIER_GAP.fullmatch(text, b, after)
            or not _QUALIFIER_GAP.fullmatch(text, spans[len(tokens) - words - 1][1], a)
        ):
            return None
        found = ending(tokens[:-words])
        if found is not None:
            if ending is _keyword_ending and (
                (_is_general(found) and words > _MAX_GENERAL_QUALIFIER)
                or any(_owner_word(canonical_text(t)) in _COMPANIES for t in tokens[len(tokens) - words :])
            ):
                return None
            return found
    return None


def qualified_keyword_before(text: str, start: int, ending: Callable[[list[str]], str | None]) -> str | None:
    """The keyword ``ending`` reads before a qualifier saying whose number it is and a linking word
    right before ``text[start:]``, as the catalogue's keywords are read (``Partita IVA del promotore
    dello studio:``, ``USt-IdNr. des Auftraggebers:``); None if there is none."""
    return _keyword_before_qualifier(text, start, ending)


def validate_after(keyword: str, value: str) -> IdNumber | None:
    """The first entry that ``keyword`` leads to and that validates ``value``."""
    for entry in entries_for(keyword):
        if entry.is_valid(value):
            return entry
    return None


def keyword_finding(text: str, start: int) -> tuple[int, int, str] | None:
    """``(start, end, label)`` of the catalogue number that starts at ``start`` right after one of
    its keywords, if any; a value that runs into the next word ("PESEL 44051401359 I cannot") or
    path segment ("/bsn/111222333/adres") is shortened a word or segment at a time."""
    m = _VALUE.match(text, start)
    if m is None:
        return None
    keyword = keyword_before(text, start)
    if keyword is None:
        return None
    value = m.group()
    while True:
        entry = validate_after(keyword, value)
        if entry is not None:
            return start, start + len(value), entry.label
        cut = max(value.rfind(" "), value.rfind("/"))
        if cut < 0:
            return None
        value = value[:cut]


#: the entries found on their own, with their compiled shapes
SHAPED: tuple[tuple[re.Pattern[str], IdNumber], ...] = tuple(
    (re.compile(e.shape), e) for e in CATALOGUE if e.shape is not None
)


def shape_findings(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, str]]:
    """``(start, end, label)`` of every number in a distinctive format that its module validates."""
    stop = len(text) if end is None else end
    for pattern, entry in SHAPED:
        for m in pattern.finditer(text, start, stop):
            if entry.is_valid(m.group()):
                yield m.start(), m.end(), entry.label
