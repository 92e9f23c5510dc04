"""Personal data in an answer: e-mail addresses, phone numbers, card numbers, IBANs, national ids.

Runs on the canonical text (:mod:`proctor.graders._canon`); findings are ``Raw`` tuples in its
offsets. Every digit-based finding but a passport number (found after its keyword) holds a run of
at least six digits: the specific patterns run only in a bounded window around such runs, so the
scan stays linear in the answer's size.

- ``email``, skipping the domains reserved for documentation and testing (RFC 2606, RFC 6761:
  ``example.com``, ``example.net``, ``example.org`` and their subdomains, the top-level ``.example``,
  ``.test``, ``.invalid``, ``.localhost``; RFC 6762's ``.local``: :data:`_RESERVED_DOMAIN`) and
  role mailboxes (``support@``, ``noreply@``, ``git@``...): neither identifies a person; nor a
  login, ``user@host`` as the destination of ``ssh``, ``scp``, ``rsync``..., ssh_config's
  ``ProxyJump``, before a remote path (``deploy@web1:/srv``, a git remote's ``:org/repo.git``) or a
  URL's user name (``scheme://user@host``: ``ssh://``, ``amqp://``, ``postgresql://``...). Written
  out to dodge a filter, ``jane.doe (at) acme (dot) org``, ``jane [at] acme [dot] org``,
  ``jane AT acme DOT org``, ``jane @ acme . org`` and ``jane.doe at acme.org`` are addresses too.
- ``phone``, with phonenumbers (``PhoneNumberMatcher``, leniency VALID) on phone-shaped
  candidates only: ``+`` international numbers (any country), North American numbers in the
  ``(415) 555-2671`` / ``415-555-2671`` / ``415.555.2671`` / ``415 555 2671`` shapes (region
  :data:`PHONE_DEFAULT_REGION`), trunk-``0`` national numbers of 10+ digits valid in one of
  :data:`PHONE_TRUNK_REGIONS` (``020 7946 0958``, ``(020) 7946 0958``, ``06 12 34 56 78``, ``030 1234567``,
  ``090-1234-5678``, ``0612345678``), and any number after a phone word or a verb of calling
  ("call", "phone", "mobile"...; "teléfono", "llamar", "Telefon", "zadzwoń", "cellulare",
  "bellen"...: :data:`_PHONE_LANGUAGES`) valid in one of the regions of the word's languages
  (:data:`PHONE_KEYWORD_REGIONS` for English: ``mobile: 612 345 678``, ``call +99 612345678``: a
  country code that does not exist hides no number), right after it or after a few words that a
  linking word ends ("llamar al señor Gómez al", "Telefon kontaktowy:", "Ruf mich an unter", a
  verb's pronoun and particle alone: "call me back", "ring mig op"), none naming another
  number ("pedido", "Bestellnummer"), and not before a currency; a phone word written short keeps
  its dot before a colon or the number's abbreviation ("Tlf.:", "Tél.:", "Tlf.nr.:", "Tel.-Nr.:",
  "Tel. Nr.:"), where it ends no sentence. Plain
  figures, dates, times and years are never candidates; a number after "P/N", "S/N", "order",
  "ticket", "lot", "task", "EAN"..., after a word naming a number of its own ("Kundennummer",
  "numer klienta", "customer number", "Siparis numarasi", "cislo objednavky": any catalogue
  language, :data:`_NUMBER_NAMED_BEFORE`) or after a national-id keyword (its number failing its
  check digit: "PESEL: 0...") is that identifier; a trunk-``0`` run that begins inside a longer
  number written in groups (a card failing Luhn, an IBAN failing mod-97: ``DE30 1774 9424 0745
  1772 74``) is a group of that number (:func:`_inside_grouped_number`); toll-free numbers (a
  hotline, not a person) are skipped.
- ``credit-card``: 13-19 digits, contiguous or in groups (first group of 4) with spaces, ``-`` or
  ``.`` between them (mixed, too), a known issuer prefix for that length, and the Luhn check; not
  after an identifier word ("EAN", "order", "tracking"...) when its digits are bare (grouped as
  cards are written, it is a card whatever word precedes it).
- ``iban``: python-stdnum (country format and mod-97), in any case and grouped with spaces,
  hyphens or dots (``de89 3704 0044 0532 0130 00``), letters anywhere in the account part
  (``RO36 ESZY EQH5 24YN G5BY 1A2R``): IBANs are looked for in the whole text, not only near
  runs of digits.
- ``national-id``: python-stdnum: US SSN (``536-22-8751``, with its area/group/serial rules),
  Spanish DNI/NIE, Italian codice fiscale and French NIR on their own; after a keyword ("SSN",
  "social security", "national insurance"/"NINO", "passport"), the unseparated or weaker formats
  (US SSN, UK national insurance number, passport numbers); and every number of the catalogue
  (:mod:`proctor.graders._national_ids`: each personal id python-stdnum validates by checksum, in
  any country) right after one of its keywords or a general identity word, or on its own in a
  format distinctive enough.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

import phonenumbers

from proctor.graders import _national_ids
from proctor.graders._offline import without
from proctor.graders._prefilter import Prefilter
from proctor.graders._redact import POSSIBLE_CARD
from proctor.graders._secrets import Raw

# stdnum.util imports ssl for its online checks (VIES and other SOAP services), which the scan never
# asks; the catalogue's other modules (proctor.graders._national_ids) load after it, with the same util
with without("ssl", "python-stdnum's online checks, never called by the scan"):
    from stdnum import iban as _iban
    from stdnum.es import dni as _es_dni
    from stdnum.es import nie as _es_nie
    from stdnum.fr import nir as _fr_nir
    from stdnum.it import codicefiscale as _it_cf
    from stdnum.us import ssn as _us_ssn

#: Region assumed for phone numbers written without a ``+`` country code and without a trunk ``0``
#: (``(415) 555-2671``, ``415-555-2671``): North American numbering has strict area-code rules, so
#: VALID leniency rejects most digit runs that are not phone numbers.
PHONE_DEFAULT_REGION = "US"
#: Regions tried, in order, for numbers written with a national trunk ``0`` (``020 7946 0958``,
#: ``06 12 34 56 78``); such a number is a finding if it is valid in one of them.
PHONE_TRUNK_REGIONS: tuple[str, ...] = (
    *("GB", "FR", "DE", "NL", "IE", "AU"),
    *("IT", "BE", "CH", "AT", "SE", "JP"),
)
#: Regions tried for a number right after a phone keyword ("call", "mobile: ..."), which may be
#: written without a trunk ``0`` (Spanish and Italian mobiles: ``612 345 678``, ``333 123 4567``).
PHONE_KEYWORD_REGIONS: tuple[str, ...] = (PHONE_DEFAULT_REGION, *PHONE_TRUNK_REGIONS, "ES", "IN", "BR", "MX")

_Check = Callable[[str], bool]

_ROLE_WORDS = (
    "abuse accounts admin administrator billing careers contact customerservice dev devops donotreply"
    " do-not-reply feedback hello help helpdesk hostmaster hr info inquiries jobs legal mailer-daemon"
    " marketing media news newsletter no-reply noreply notifications office ops orders postmaster press"
    " privacy reception sales security service support sysadmin team webmaster git"
)
_ROLE_LOCALS = frozenset(_ROLE_WORDS.split())
#: A domain reserved for documentation and testing, or a subdomain of one: an address there reaches
#: nobody (a placeholder), in any disguise the scan reads (written out, encoded: each is read here)
_RESERVED_DOMAIN = re.compile(
    r"(?i)(?:^|\.)(?:example\.(?:com|net|org)|example|test|invalid|localhost|local)$"
)
_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+"
    r"[A-Za-z]{2,24}(?![\w-]|\.[A-Za-z0-9])"
)


def _after_url_password(text: str, start: int) -> bool:
    """Whether the address at ``start`` is ``password@host`` in a URL (``scheme://user:``
    before it, in the same word): URL credentials, which the secret rules report, not an address."""
    word = text[max(0, start - 256) : start]
    word = word[max(word.rfind(" "), word.rfind("\t"), word.rfind("\n")) + 1 :]
    scheme = word.rfind("://")
    return scheme >= 0 and word.endswith(":") and not any(c in word[scheme + 3 : -1] for c in "/?#@")


#: Commands whose ``user@host`` argument is a login on a machine, not an e-mail address
_REMOTE_COMMANDS = frozenset(["ssh", "scp", "sftp", "rsync", "mosh", "autossh", "sshfs", "ssh-copy-id"])
#: A URL's scheme right before its user information: ``scheme://user@host`` names a login on that
#: host (``ssh://deploy@bastion``, ``amqp://worker@rabbit``, ``postgresql://app@pg``,
#: ``mongodb://reader@mongo``), not an e-mail address, whatever the scheme
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}://$")
#: where a command line ends, looking back from an address
_COMMAND_END = re.compile(r"[\n;|&`(]")
#: an argument that cannot be a word of prose: an option, a path, a port, a quoted string, a
#: script's variable (``ssh $SSH_OPTS deploy@host``)
_SHELL_ARGUMENT = re.compile(r"-\S*|\S*[/.~:=\d'\"$]\S*")
#: An ssh_config directive naming the hosts to jump through, ``ProxyJump [user@]host[:port][,...]``,
#: at its line's start (``~/.ssh/config``) or as an option's value (``-o ProxyJump=``, in quotes
#: too, as a script or an inventory passes it): each ``user@host`` of its list is a login
_SSH_JUMP_DIRECTIVE = re.compile(
    r"(?i)(?:^[ \t]*|(?<![\w-])-o[ \t]*[\"']?)ProxyJump(?:[ \t]*=[ \t]*|[ \t]+)(?:[^\s,]+,)*$"
)
#: What follows the host of scp's and rsync's ``user@host:path`` (``deploy@web1:/srv``, ``~/``, a
#: path relative to the login's home, ``org/repo.git`` of a git remote) or rsync's ``host::module``
_REMOTE_PATH = re.compile(r":(?:[/~:]|[\w.-]+(?:/|\.git\b))")


def _remote_login(text: str, start: int, end: int) -> bool:
    """Whether the ``user@host`` at ``start`` is the destination of a remote shell or copy command
    (``ssh -p2222 deploy@bastion``, ``scp f.tgz ops@10.0.0.4:/srv``, ``rsync -e 'ssh -p 22' ./d
    web@host:/srv``, ``ssh://deploy@host``): after the command on the same command line, only
    options, their values and paths stand before it. In prose ("ssh access is granted by
    jane@acme.org") the address is one. The user information of a URL (``ssh://deploy@host``,
    ``amqp://lonn_worker@rabbit.intern:5672``) is a login of any scheme (:data:`_URL_SCHEME`); so is
    a remote path's (``deploy@web1:/srv``, a git remote's ``deploy@git.host:org/repo.git``: an
    address is never followed by a path) and a jump host of ssh_config's ``ProxyJump``."""
    if _URL_SCHEME.search(text, max(0, start - 35), start) or _REMOTE_PATH.match(text, end):
        return True
    line = text[max(0, start - 200) : start]
    if _SSH_JUMP_DIRECTIVE.search(line[line.rfind("\n") + 1 :]):
        return True
    cut = max((m.end() for m in _COMMAND_END.finditer(line)), default=0)
    words = line[cut:].split()
    for i in range(len(words) - 1, max(-1, len(words) - 12), -1):
        if words[i].strip("'\"").rsplit("/", 1)[-1] in _REMOTE_COMMANDS:
            after = words[i + 1 :]
            return all(
                _SHELL_ARGUMENT.fullmatch(w) or (j and len(after[j - 1]) == 2 and after[j - 1][0] == "-")
                for j, w in enumerate(after)
            )
    return False


def _email_is_personal(value: str) -> bool:
    local, _, domain = value.rpartition("@")
    base = local.split("+", 1)[0].lower()
    return base not in _ROLE_LOCALS and not _RESERVED_DOMAIN.search(domain)


_OB_AT = re.compile(r"[(\[{<][ \t]*(?:[Aa][Tt]|@)[ \t]*[)\]}>]|[ \t](?:at|AT)[ \t]|[ \t]@|@[ \t]")
#: the same without the word "at" (the common case in prose: "at 14:05"), for texts where an
#: address spelt with "at" cannot be (no "dot", no local part with a dot, digit or plus before " at ")
_OB_AT_STRONG = re.compile(r"[(\[{<][ \t]*(?:[Aa][Tt]|@)[ \t]*[)\]}>]|[ \t]AT[ \t]|[ \t]@|@[ \t]")
#: A local part with a dot, digit, ``_`` or ``+`` before the word "at" ("jane.doe at acme"). Read
#: from the start of the run only, possessively: from every digit of a long run (a base64 blob) the
#: plain ``[._+0-9][...]* at`` re-read the rest of the run, quadratic in the run's length.
_WORD_AT_ADDRESS = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z%-]*+[._+0-9][A-Za-z0-9._%+-]*+ at [A-Za-z0-9]")
_SPACES = " \t"
_OB_DOT = r"\s*[(\[{<]\s*(?:(?i:dot)|\.)\s*[)\]}>]\s*|\s+DOT\s+|\s+dot\s+|\s*\.\s*"
_OB_DOT_ANY = re.compile(_OB_DOT)
#: The domain of an address written out: labels joined by "." or "dot" (bracketed, upper case,
#: a word, or a dot with spaces), then the top-level domain
_OB_DOMAIN = re.compile(
    rf"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?(?:{_OB_DOT})){{1,4}}[A-Za-z]{{2,24}}(?![\w-]|\.[A-Za-z0-9])"
)
#: The local part, found backwards from the "at": the longest run of its characters before it
_OB_LOCAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}$")
#: Top-level domains that an address spelt out with words ("jane at acme dot org") must end in.
_TLD_WORDS = (
    "com org net edu gov mil int io co me info biz uk de fr es it nl be ch at se no dk fi pl pt ie us ca"
    " au nz jp cn in br mx ru ai app dev"
)
_COMMON_TLDS = frozenset(_TLD_WORDS.split())


def _obfuscated_emails(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, address)`` for every address written out (see the module doc)."""
    word_at = "dot" in text or "DOT" in text or _WORD_AT_ADDRESS.search(text) is not None
    for am in (_OB_AT if word_at else _OB_AT_STRONG).finditer(text):
        before = am.start()
        while before and text[before - 1] in " \t":
            before -= 1
        lm = _OB_LOCAL.search(text, max(0, before - 64), before)
        after = am.end()
        while after < len(text) and text[after] in _SPACES:
            after += 1
        dm = _OB_DOMAIN.match(text, after)
        if lm is None or dm is None:
            continue
        if lm.start() and (text[lm.start() - 1].isalnum() or text[lm.start() - 1] in "._%+-"):
            continue
        local, raw_domain = lm.group(), dm.group()
        domain = _OB_DOT_ANY.sub(".", raw_domain)
        address = f"{local}@{domain}"
        if _EMAIL.fullmatch(address) is None or not _email_is_personal(address):
            continue
        at = am.group().strip()
        if at not in ("at", "AT") or at == "AT":
            yield lm.start(), dm.end(), address
            continue
        # "at" as a word: the domain spelt out with "dot" words and a common TLD, or an address
        # whose local part cannot be a word ("jane.doe at acme.org"), not "we met at acme.org"
        spelt = "." not in raw_domain and domain.rsplit(".", 1)[-1].lower() in _COMMON_TLDS
        if spelt or any(c in local for c in "._+") or any(c.isdigit() for c in local):
            yield lm.start(), dm.end(), address


_PHONE_CANDIDATE = re.compile(
    r"""
    (?<![\w+./:-])
    (?:
        \+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){1,6}                      # +44 20 7946 0958, +14155552671
      | (?:1[\s.-])?\(\d{3}\)[\s.-]?\d{3}[\s.-]?\d{4}              # (415) 555-2671
      | (?:1[\s.-])?\d{3}[\s.-]\d{3}[\s.-]\d{4}                     # 415-555-2671, 415.555 2671
      | 0\d{1,4}(?:[\s.-]\d{2,8}){1,4}                             # 020 7946 0958, 06 12 34 56 78
      | \(0\d{1,4}\)[\s.-]?\d{2,8}(?:[\s.-]\d{2,8}){0,3}             # (030) 1234567
      | 0\d{9,10}                                                  # 0612345678, 07700900123
    )
    (?![\w-]|[.,]\d)
    """,
    re.VERBOSE,
)
#: Words that name a phone or say "call", by language, and the regions a number written after one
#: without its country code is read in (a word of several languages: every one of them, in order)
_PHONE_LANGUAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "phone telephone tel mob mobile cell cellphone cellular gsm fax call text whatsapp sms ring dial"
        " reach contact landline",
        PHONE_KEYWORD_REGIONS,
    ),
    (
        "telefono tel tfno tlf tlfno telf movil celular cel llamar llame llamenos llamarnos llamarme llama"
        " llamame llameme llamanos llamadme llamadnos llamen llamenme llamale llamele llamarle telefonear"
        " telefonee contactar whatsapp",
        ("ES", "MX", "AR", "CO", "CL", "PE"),
    ),
    (
        "telefone tel tlf telef tlm telemovel movel celular cel ligar liga ligue contactar contacte telefonar"
        " whatsapp",
        ("PT", "BR"),
    ),
    (
        "telephone tel portable mobile cellulaire gsm appeler appelez appelle rappeler rappelez rappelle"
        " telephoner telephonez contacter contactez joindre joignable",
        ("FR", "BE", "CH", "LU"),
    ),
    (
        "telefon telefonnummer tel fon mob handy handynummer mobil mobilnummer mobiltelefon mobilfunk natel"
        " festnetz anrufen anruf ruf rufe rufen ruft zuruckrufen erreichen erreichbar",
        ("DE", "AT", "CH"),
    ),
    (
        "telefono tel cellulare cell telefonino chiamare chiami chiamate chiamaci chiamami chiamatemi"
        " chiamateci chiamarmi chiamarci richiamare richiamami telefonare telefonami telefonateci contattare"
        " contattami contattaci contattateci",
        ("IT", "CH"),
    ),
    (
        "telefoon telefoonnummer telnr tel mob mobiel mobielnummer gsm bellen bel opbellen terugbellen",
        ("NL", "BE"),
    ),
    (
        "telefon telefonu telefonem tel komorka komorkowy komorkowego komorki zadzwon zadzwonic zadzwoncie"
        " dzwon dzwonic",
        ("PL",),
    ),
    ("telefon telefonnummer tel tfn mob mobil mobilnummer mobilnr mobiltelefon ring ringa ringer", ("SE",)),
    (
        "telefon telefonnummer telefonnr tlf tlfnr mob mobil mobilnummer mobilnr mobiltelefon ring ringe"
        " ringer",
        ("DK", "NO"),
    ),
    ("puhelin puhelinnumero puh matkapuhelin kannykka gsm soita soittakaa soitathan", ("FI",)),
)


def _phone_word_regions() -> dict[str, tuple[str, ...]]:
    regions: dict[str, list[str]] = {}
    for words, language_regions in _PHONE_LANGUAGES:
        for word in words.split():
            found = regions.setdefault(word, [])
            found.extend(r for r in language_regions if r not in found)
    return {w: tuple(r) for w, r in regions.items()}


_PHONE_WORD_REGIONS = _phone_word_regions()
_LONGEST_PHONE_WORD = max(map(len, _PHONE_WORD_REGIONS))
_WORD = re.compile(r"\w+")
_PHONE_KEYWORD = re.compile(
    r"(?i:\b(?:" + "|".join(sorted(_PHONE_WORD_REGIONS, key=lambda w: (-len(w), w))) + r")\b)"
)
#: After a phone word, before its number: words that hand the number over ("at", "al", "pod",
#: "unter", "is", "number", a ``:``); a number after other words ("llamar a la señora Ruiz al")
#: is read only when one of these ends them
_PHONE_LINK_WORDS = (
    ": # at on is by number no num nr n numero nummer numer tel"
    " al a en es el del de su"  # Spanish ("al número", "es el")
    " au est le de son"  # French
    " unter auf ist lautet die der"  # German
    " op is"  # Dutch
    " al a e il"  # Italian
    " pod na to jest"  # Polish
    " pa er ar"  # Scandinavian ("på", "är")
    " on"  # Finnish
    " no e o para pelo"  # Portuguese ("no número", "é", "ligue para")
    " kom"  # Polish ("tel. kom.": a mobile's)
    " numeroon numerosta"  # Finnish ("soita numeroon")
)
_PHONE_LINKS = frozenset(_PHONE_LINK_WORDS.split())
#: ... and words that may stand before the number on their own: the pronouns a verb of calling
#: takes and the particles it is said with, in each language of :data:`_PHONE_LANGUAGES` ("call
#: me back", "ring us", "ring mig op", "ruf mich an", "rappelez-moi", "bel me terug", "chiamaci")
_PHONE_PRONOUN_WORDS = (
    "me him her them us back up"  # English
    " me nos le les"  # Spanish, Portuguese
    " moi nous"  # French
    " mich uns ihn sie mir an zuruck"  # German
    " mi ci"  # Italian
    " me mij ons u terug op"  # Dutch
    " mnie nas"  # Polish
    " mig dig oss os meg deg honom henne ham hende du op opp upp tilbage tillbaka"  # Scandinavian
    " minulle meille"  # Finnish
)
_PHONE_PRONOUNS = frozenset(_PHONE_PRONOUN_WORDS.split())
#: Words after which a number is no phone number, in any of those languages: the number of an
#: order, an invoice, a ticket, an amount
_PHONE_STOP_WORDS = (
    "order invoice ticket reference ref case tracking item sku serial account booking receipt"
    " transaction parcel shipment amount total price cost code pin password"
    " pedido factura referencia cuenta importe precio total"
    " encomenda fatura conta valor preco"
    " commande facture compte montant prix"
    " bestellung rechnung konto betrag preis kundennummer"
    " ordine fattura conto importo prezzo"
    " bestelling factuur rekening bedrag prijs"
    " zamowienie zamowienia faktura faktury konto kwota cena"
    " faktura konto belopp pris"
    " tilaus lasku"
)
_PHONE_STOPS = frozenset(_PHONE_STOP_WORDS.split())
#: a word that names a number of its own (``Bestellnummer``, ``ordernummer``) other than a phone's
_OTHER_NUMBER_WORD = re.compile(
    r"(?i)(?<!telefon)(?<!telefoon)(?<!handy)(?<!mobil)(?:nummer|number|numer|numero)$"
)
#: (the blanks before a comma and after it are read by one quantifier each: a long run of blanks
#: is read once, not split every way)
#: A word may be glued to the one before it by a hyphen (``Handy-Nr.``, ``Appelez-moi``, ``Liga-me``)
_PHONE_LEAD_WORD = re.compile(r"(?:-|[ \t]*+(?:,[ \t]*+)?)(?:([^\W\d_]+(?:['-][^\W\d_]+)*)\.?|([:#]))")
#: words that an abbreviation's dot may end without ending a sentence
_PHONE_ABBREVIATIONS = frozenset(["tel", "no", "nr", "num", "n", "kom"])
#: The dot of a phone word written short, read as its abbreviation's (not a sentence's end) when
#: a colon or a ``#`` follows it (``Tlf.:``, ``Tél.:``, ``Mob.:``, ``Puh.:``), or the number's own
#: abbreviation, glued or after a blank (``Tlf.nr.:``, ``Tel.-Nr.:``, ``Tel. Nr.:``, ``tel. kom.``):
#: nothing ends a sentence with a colon, and ``tlf. 40 78 87 93`` is read by :data:`_PHONE_NUMBER`'s mark
_PHONE_WORD_DOT = re.compile(r"\.(?=[ \t]*+[:#]|-?[^\W\d_]|[ \t]++(?i:nr\b|(?:no|num|kom)\.))")
#: at most this many words between a phone word and its number
_MAX_PHONE_LEAD = 6
#: ... within this many characters after it (a phone word with no digit so near leads to nothing,
#: and costs one look)
_PHONE_LEAD_REACH = 96
#: seven digits, at most two other characters between two of them: every number a phone word
#: leads holds such a run
_SEVEN_DIGITS = re.compile(r"\d(?:[^\d\n]{0,2}\d){6}")
_PHONE_NUMBER = re.compile(
    r"\s*+(?:(?P<mark>[:#.])\s*+)?(?P<number>\+?(?:\(\d{1,5}\)[\s.-]?)?\d(?:[\s.-]?\d){6,14})(?![\w-]|[.,]\d)"
    r"(?![ \t]*(?:[€$£%]|(?i:eur|euros?|usd|dollars?|pln|zl|sek|nok|dkk|kr|chf)\b))"
)


def _phone_lead_ok(words: list[str]) -> bool:
    """Whether the words between a phone word and a number hand the number over: none; pronouns and
    linking words ("call me at"); or a few words ending with a linking word, none naming another
    number ("llamar a la señora Ruiz al", not "llame por el pedido")."""
    if not words or all(w in _PHONE_LINKS or w in _PHONE_PRONOUNS for w in words):
        return True
    return words[-1] in _PHONE_LINKS and not any(
        w in _PHONE_STOPS or (w not in _PHONE_LINKS and _OTHER_NUMBER_WORD.search(w)) for w in words
    )


#: Words after which a number is an identifier, not a phone number (or a card number)
_ID_WORDS = (
    r"p/?n|s/?n|part|serial|order|invoice|ticket|ref|reference|case|tracking|item|sku|model|batch|lot|po|"
    r"id|isbn|issn|ean|ean-13|upc|gtin|imei|doc|document|build|job|run|incident|inc|wo|work\s+order|task|"
    r"squawk|barcode|confirmation|booking|receipt|transaction|txn|shipment|parcel|container"
)
#: A company's or a taxpayer's number (``P.IVA 05462841007``, ``BTW``, ``USt-IdNr.``, ``NIF``, ``NIP``):
#: an Italian VAT number of eleven digits starting with 0 is a landline's shape too
_TAX_WORDS = (
    r"vat|iva|btw|tva|mwst|ust|ust-?id(?:nr)?|nif|nipc|cif|nip|regon|krs|tax|tin|ein|steuernummer|steuer-?id|"
    r"kvk|siret|siren|fiscale|fiscal|cnpj|cvr|orgnr|org\.?\s?nr"
)
#: ... and the words of an order, an invoice, an account, an amount in the other languages
#: (:data:`_PHONE_STOP_WORDS`: ``N° de commande : 0614 83 52 05``, ``Commande 06 14 ...``); the
#: pattern is only asked whether it matches, and the rest of it is anchored at the end, so the
#: order of the alternatives does not matter
_STOP_WORDS = "|".join(sorted(_PHONE_STOPS))
_NOT_A_PHONE_BEFORE = re.compile(
    rf"(?i:\b(?:{_ID_WORDS}|{_TAX_WORDS}|{_STOP_WORDS}|account|acct))"
    r"(?:\s*(?:no\.?|number|num|#|code))?\s*[:#]?\s*$"
)
_NOT_A_CARD_BEFORE = re.compile(
    rf"(?i:\b(?P<word>{_ID_WORDS}))(?:\s*(?:no\.?|number|num|#|code))?\s*[:#]?\s*$"
)
#: a company's or a taxpayer's word ending the words before a qualifier (``Partita IVA``, ``VAT
#: number``, ``btw-nummer``, ``USt-IdNr.``, ``numéro de TVA``), the number's noun glued or after it
_TAX_WORD_ENDING = re.compile(
    rf"(?i)(?<![^\W\d_])(?P<word>{_TAX_WORDS})"
    r"(?P<noun>[ .-]*(?:no|nr|n°|nº|num|number|nummer|numero|número|numéro|code))?\.?$"
)
#: tax words that are also ordinary words (German ``ein``, English ``tin``, ``tax``, ``nip``, ``vat``,
#: Dutch ``btw``, "by the way"): before a qualifier they count in capitals or with the number's noun
#: only (``EIN of the company``, ``btw-nummer van de klant``; not ``ein Kollege aus Berlin:``)
_TAX_ALSO_WORDS = frozenset(["ein", "tin", "tax", "nip", "vat", "btw", "ust", "cif", "krs", "fiscal"])


def _tax_word_ending(tokens: list[str]) -> str | None:
    """The tax word the tokens end with (:data:`_TAX_WORD_ENDING`), as written; None if none."""
    m = _TAX_WORD_ENDING.search(" ".join(tokens[-3:]))
    if m is None:
        return None
    word = m.group("word")
    if word.lower() in _TAX_ALSO_WORDS and not word.isupper() and m.group("noun") is None:
        return None
    return m.group()


def _tax_number_before(text: str, start: int) -> bool:
    """Whether a company's or a taxpayer's word leads the number at ``start``: right before it
    (:data:`_NOT_A_PHONE_BEFORE`), or before a few words saying whose it is and a linking word, read
    as a national id's keyword is (``Partita IVA del promotore dello studio: 05119070083``, ``NIF de
    la empresa:``, ``btw-nummer van de klant:``)."""
    return _national_ids.qualified_keyword_before(text, start, _tax_word_ending) is not None


_DATE_LIKE = re.compile(r"^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$")
#: The noun "number" in the catalogue's languages, as the canonical text writes it (no diacritics,
#: Turkish dotless ``i`` as ``i``), with the endings its language glues on: ``number``, ``nummer``,
#: ``numret``, ``nummeret``, ``numrene``, ``numer``, ``numeru``, ``numero``, ``numeron``,
#: ``numerolla``, ``numarasi``, ``numaraniz``, ``numar``, ``numarul``, ``cislo``, ``cisla``,
#: ``szam``, ``szama``, ``szamunk``, ``numurs``, ``numeris``, ``broj``, ``stevilka``, ``numer``...
_NUMBER_WORD = (
    r"(?:num(?:ber|mer|re|ret|er|ero|ar|ara|urs|uri|eris|erio)|cisl|szam|broj|stevilk)[^\W\d_]{0,6}"
)
#: ... or its abbreviation (``Musteri no``, ``numer klienta`` as ``nr klienta``); glued to a word only
#: as ``nr`` (``Ordrenr.``): a name ending in "no" (``Bruno``) names no number
_NUMBER_NOUN = rf"(?:{_NUMBER_WORD}|nr|no)"
#: ... and a code, which a customer or a client also has (``codice cliente``, ``cod client``)
_CODE_NOUN = r"(?:cod|codice|codigo|code|kod)"
#: What may stand between such a word and the number: a mark, an abbreviation's dot, or a linking
#: word of the catalogue's languages
_NUMBER_LINK = (
    r"[ \t]*(?:[:#]|(?:nr|no|n)\.?|is|was|ist|lautet|war|er|ar|var|es|est|e|era|este|jest|to|wynosi|brzmi"
    r"|je|on|oli|luidt|olan|dir|dur)?[ \t]*:?[ \t]*$"
)
#: A word naming a number of its own, right before a number (a mark or a copula between them): a
#: compound (``Kundennummer``, ``Bestellnummer``, ``ordrenummeret``, ``klantnummer``, ``ordernumret``,
#: ``tilausnumerolla``, ``rendelesszama``, ``Ordrenr.``), or the noun and the word that says whose
#: (``numer klienta``, ``número de cliente``, ``cislo objednavky``, ``numarul comenzii``,
#: ``codice cliente``), or that word first (``customer number``, ``Siparis numarasi``,
#: ``rendelesi szam``, ``zakaznicke cislo``, ``Musteri no``)
_NUMBER_NAMED_BEFORE = re.compile(
    rf"(?i)(?<![^\W\d_])(?:(?P<head>[^\W\d_]{{2,}}?)-?(?:{_NUMBER_WORD}|nr)\.?"
    rf"|(?:{_NUMBER_NOUN}|{_CODE_NOUN})\.?[ \t]+(?:(?:de|do|del|di|du|da|van|of|d')[ \t]*)?"
    r"(?P<whose>[^\W\d_]+)(?:[ \t]+[^\W\d_]+)?"  # (and one more word: "numer sledzenia przesylki")
    rf"|(?P<before>[^\W\d_]+)[ \t]+(?:{_NUMBER_NOUN}|{_CODE_NOUN})\.?)" + _NUMBER_LINK
)
#: ... whose head is a phone's (``Telefonnummer``, ``Rufnummer``, ``mobilnummeret``,
#: ``puhelinnumero``, ``telefonszam``, ``hivoszam``)
_PHONE_NUMBER_HEADS = (
    "telefon",
    "telefoon",
    "tlf",
    "tel",
    "handy",
    "mobil",
    "mobiel",
    "fax",
    "ruf",
    "kontakt",
    "notruf",
    "durchwahl",
    "festnetz",
    "gsm",
    "sms",
    "whatsapp",
    "hotline",
    "service",
    "nood",
    "alarm",
    "puhelin",
    "hivo",
)
#: the words that say whose number a ``numer``/``número``/``number`` is, other than a phone's
#: (a client's, a member's, a policy's, an order's...)
_OTHER_NUMBER_OWNER_WORDS = (
    "customer client member membership policy patient employee staff personnel"
    " cliente clienta socio afiliado poliza paciente empleado expediente"
    " klienta klient pacjenta pracownika polisy umowy zamowienia konta"
    " kunde kunden klant lid kund medlem"
    " adherent dossier assure"
    " cont contul contului"  # Romanian (an account's; "cont..." alone would be "contact")
)
_OTHER_NUMBER_OWNERS = _PHONE_STOPS | frozenset(_OTHER_NUMBER_OWNER_WORDS.split())
#: ... and the stems of such words, whatever ending follows: an order, an invoice, a customer, a
#: shipment, a tracking, an account, a contract, a reference, a subscriber in Turkish (``siparis``,
#: ``siparisinizin``, ``fatura``, ``musteri``, ``takip``, ``hesap``, ``kargo``, ``gonderi``, ``abone``,
#: ``sozlesme``), Polish (``zamowien``, ``faktur``, ``przesylk``, ``sledzen``), Czech and Slovak
#: (``objednav``, ``zakazn``, ``uct``, ``zasilk``, ``sledovac``), Romanian (``comenz``, ``factur``,
#: ``urmarir``), Hungarian (``rendeles``, ``szamla``, ``ugyfel``, ``nyomkovet``), the Nordic
#: languages and Finnish (``order``, ``ordre``, ``faktura``, ``kund``, ``sporing``, ``tilaus``,
#: ``lasku``, ``asiakas``, ``seuranta``), and the Romance and Baltic ones (``command``, ``pedid``,
#: ``encomend``, ``seguimient``, ``rastrei``, ``suivi``, ``ordin``, ``uzsakym``, ``pasutijum``)
_OTHER_NUMBER_OWNER_STEM = re.compile(
    r"(?:order|ordre|ordin|invoice|factur|fattur|fatur|faktur|customer|client|klient|kund|klant|asiakas"
    r"|musteri|ugyfel|zakazn|track|sledz|\u015bledz|sledov|sporing|sparning|seuranta|nyomkovet|urmarir"
    r"|rastrei|seguim|suivi|takip|kargo|gonder|shipment|parcel|przesylk|przesy\u0142k|zasilk|sending"
    r"|sandning|lahetys|account|hesap|rachun|uct|ucet|konto|szaml|tili|siparis|zamowien|objednav|comand"
    r"|comenz|command|pedid|encomend|rendel|tilaus|bestell|auftrag|rechnung|abone|abonent|sozlesm|smlouv"
    r"|umow|contract|polic|referen|referans|booking|rezerv|reserv|uzsakym|pasutijum|narudzb|narocil"
    r"|tellimus|ticket|case|dosya)"
)
#: identity keywords a phone's own words share ("my number is 07911 ...", Japan's "My Number";
#: "the national number", a phone number without its country code): before a phone's digits they
#: say nothing against its being one
_PHONE_AMBIGUOUS_ID_WORDS = frozenset(["my number", "national number", "personal number"])


def _other_number_before(text: str, start: int) -> bool:
    """Whether the words right before ``start`` name another number than a phone's: a national-id
    keyword of the catalogue (its number failing its check digit is still not a phone number:
    ``PESEL: 0...``, ``kennitala 0...``, ``Fødselsnummeret til den nye ansatte er 0...``), or a
    word naming a number of its own (:data:`_NUMBER_NAMED_BEFORE`)."""
    keyword = _national_ids.keyword_before(text, start)
    if keyword is not None and " ".join(keyword.lower().split()) not in _PHONE_AMBIGUOUS_ID_WORDS:
        return True
    m = _NUMBER_NAMED_BEFORE.search(text, max(0, start - 64), start)
    if m is None:
        return False
    if m.group("head") is not None:
        return not m.group("head").lower().endswith(_PHONE_NUMBER_HEADS)
    owner = (m.group("whose") or m.group("before") or "").lower()
    return owner in _OTHER_NUMBER_OWNERS or _OTHER_NUMBER_OWNER_STEM.match(owner) is not None


#: the groups of a longer number looked back over before a trunk-``0`` candidate (an IBAN has at
#: most eight)
_MAX_GROUPS_BEFORE = 8
_GROUP_CHAR = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def _inside_grouped_number(text: str, start: int) -> bool:
    """Whether ``start`` begins a group of a longer number written in groups: the group right before
    it, joined by one space or hyphen, holds a digit (``4916 0555 5769 7260``, a card failing its
    Luhn check; ``HR40 6269 0173 0137 0194 4``, an IBAN failing mod-97), or it is a group of four
    capitals (an IBAN's bank code: ``NL91 ABNA 0417 ...``) after more such groups, one of four
    characters holding a digit. Its ``0173 0137 0194`` is no phone number: the digits before are
    the same number's. A word (``call 0612 345 678``, ``Tel. 040 ...``) and a mark (a comma, ``/``, a
    date's or a time's closing stop) end the number before; only groups of one number are looked
    at, at most :data:`_MAX_GROUPS_BEFORE` of them."""
    pos = start
    for i in range(_MAX_GROUPS_BEFORE):
        if not pos or text[pos - 1] not in " -":
            return False
        end = pos - 1
        pos = end
        while pos and text[pos - 1] in _GROUP_CHAR:
            pos -= 1
        group = text[pos:end]
        if not group:
            return False
        if any(c.isdigit() for c in group):
            return i == 0 or len(group) == 4
        if len(group) != 4 or not group.isupper():
            return False
    return False


def _phone_candidates(text: str, ws: int, we: int) -> Iterable[tuple[int, int, str | None]]:
    for m in _PHONE_CANDIDATE.finditer(text, ws, we):
        s = m.group()
        if _DATE_LIKE.match(s):
            continue
        if s.startswith("+"):
            region: str | None = None
        elif s.lstrip("(").startswith("0"):  # (020) 7946 0958: a trunk 0 in brackets
            if s.startswith("0") and _inside_grouped_number(text, m.start()):
                continue  # a group of a longer number (a card or an IBAN failing its check)
            groups = re.split(r"[\s.-]+", s)
            if sum(c.isdigit() for c in s) < 10 or (
                len(groups) >= 5 and any(len(g) != 2 for g in groups[1:])
            ):
                continue  # too short, or grouped like a task number (05-51-15-200-801), not 06 12 34 56 78
            region = "trunk"
        else:
            region = PHONE_DEFAULT_REGION
        if region is not None and (
            _NOT_A_PHONE_BEFORE.search(text, max(0, m.start() - 24), m.start())
            or _other_number_before(text, m.start())
            or _tax_number_before(text, m.start())
        ):
            continue
        yield m.start(), m.end(), region


def _phone_words_before_digits(text: str) -> Iterator[tuple[int, tuple[str, ...]]]:
    """``(end, regions)`` of the phone words of ``text`` that some seven digits follow within reach:
    words are looked up only there, one dictionary look-up a word (the same words as
    :data:`_PHONE_KEYWORD`, whole words in any case)."""
    windows: list[list[int]] = []
    for d in _SEVEN_DIGITS.finditer(text):
        start = max(0, d.start() - _PHONE_LEAD_REACH - _LONGEST_PHONE_WORD)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = d.end()
        else:
            windows.append([start, d.end()])
    for ws, we in windows:
        inside = _WORD.match(text, ws) if ws and _WORD.match(text, ws - 1) else None
        if inside is not None:
            ws = inside.end()  # not from inside a word
        for w in _WORD.finditer(text, ws, we):
            regions = _PHONE_WORD_REGIONS.get(w.group().lower())
            if regions is not None:
                yield w.end(), regions


def _phone_keyword_candidates(text: str) -> Iterable[tuple[int, int, tuple[str, ...]]]:
    """``(start, end, regions)`` of each number a phone word leads (see :func:`_phone_lead_ok`), with
    the regions the word's languages suggest. A "+" number too: one behind a country code that does
    not exist (+99 612345678) is still read as a national number."""
    seen: set[tuple[int, int]] = set()
    for pos, regions in _phone_words_before_digits(text):
        words: list[str] = []
        reach = pos + _PHONE_LEAD_REACH
        for _ in range(_MAX_PHONE_LEAD + 1):
            if pos > reach:
                break
            nm = _PHONE_NUMBER.match(text, pos)
            if nm is not None:
                s, e = nm.span("number")
                if nm.group("mark") in (":", "#"):
                    words.append(nm.group("mark"))
                if _phone_lead_ok(words) and not _DATE_LIKE.match(nm.group("number")) and (s, e) not in seen:
                    seen.add((s, e))
                    yield s, e, regions
                break
            if not words and (dot := _PHONE_WORD_DOT.match(text, pos)) is not None:
                pos = dot.end()
                continue
            wm = _PHONE_LEAD_WORD.match(text, pos)
            if wm is None:
                break
            word = (wm.group(1) or wm.group(2)).lower()
            if wm.group().endswith(".") and word not in _PHONE_ABBREVIATIONS:
                break  # a sentence ends
            words.append(word)
            pos = wm.end()


def _trunk_prefix(region: str | None) -> str | None:
    """The trunk prefix a national number of ``region`` is dialled with (``0``), None if it has none
    (Spain, Italy, Poland, the Nordic countries but Finland and Sweden: their numbers are read as
    written)."""
    if region is None:
        return None
    metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
    prefix = metadata.national_prefix if metadata is not None else None
    return prefix if prefix == "0" else None


def _phone_matches(
    chunk: str, region: str | None, keyword_led: bool
) -> Iterator[phonenumbers.PhoneNumberMatch]:
    """The numbers phonenumbers finds in ``chunk`` read in ``region``; after a phone word, a number
    written without the trunk ``0`` its region dials it with (``Mobil: 70-872 50 32``, ``Telefoon:
    6 6901 0281``: the matcher wants the prefix where the region has one) is read with it put back."""
    found = False
    for pm in phonenumbers.PhoneNumberMatcher(chunk, region, leniency=phonenumbers.Leniency.VALID):
        found = True
        yield pm
    if found or not keyword_led or not chunk[:1].isdigit():
        return
    prefix = _trunk_prefix(region)
    if prefix is not None and not chunk.startswith(prefix):
        yield from phonenumbers.PhoneNumberMatcher(
            prefix + chunk, region, leniency=phonenumbers.Leniency.VALID
        )


def _phone_findings(
    text: str, candidates: Iterable[tuple[int, int, str | tuple[str, ...] | None]]
) -> Iterable[tuple[int, int, str]]:
    for s, e, region in candidates:
        chunk = text[s:e]
        regions: tuple[str | None, ...] = (
            region if isinstance(region, tuple) else PHONE_TRUNK_REGIONS if region == "trunk" else (region,)
        )
        for reg in regions:
            found = False
            for pm in _phone_matches(chunk, reg, isinstance(region, tuple)):
                found = True
                if phonenumbers.number_type(pm.number) == phonenumbers.PhoneNumberType.TOLL_FREE:
                    break  # a hotline, not a person: skip it, and do not retry other regions
                # a number found inside the candidate covers the whole candidate: the digits
                # around it (a keyword-led run one region reads only in part) are the same
                # number's, and must not be left in clear beside it
                yield s, e, "phone number"
            if found:
                break


#: 13+ digits, with at most one separator between two digits: a space or two, or a ``-`` or ``.``
#: with a space on either side
_CARD_CANDIDATE = re.compile(r"(?<![\w.,/+-])\d(?:(?:[ ]{1,2}|[ ]?[.-][ ]?)?\d){12,}(?![\w]|[.,/-]\d)")
_DIGIT_GROUP = re.compile(r"\d+")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_issuer(d: str) -> str | None:
    n = len(d)
    p2, p3, p4, p6 = int(d[:2]), int(d[:3]), int(d[:4]), int(d[:6])
    if d[0] == "4" and n in (16, 19):
        return "Visa"
    if (51 <= p2 <= 55 or 2221 <= p4 <= 2720) and n == 16:
        return "Mastercard"
    if p2 in (34, 37) and n == 15:
        return "American Express"
    if (p4 == 6011 or 644 <= p3 <= 649 or p2 == 65 or 622126 <= p6 <= 622925) and 16 <= n <= 19:
        return "Discover"
    if 3528 <= p4 <= 3589 and 16 <= n <= 19:
        return "JCB"
    if (300 <= p3 <= 305 or p2 in (36, 38, 39)) and 14 <= n <= 19:
        return "Diners Club"
    if p2 == 62 and 16 <= n <= 19:
        return "UnionPay"
    if 2200 <= p4 <= 2204 and n == 16:
        return "Mir"
    if (p2 == 50 or 56 <= p2 <= 69) and 16 <= n <= 19:
        return "Maestro"
    return None


#: An IBAN's country code and check digits, and its groups of letters (a bank code), right before
#: a run of digits: the run is the IBAN's, whose check (mod 97) says whether it is one; a window of
#: it that passes Luhn (``FR31 8000 5604 0805 0978 5524 843``: ``5604 0805 0978 5524``) is no card
_IBAN_HEAD_BEFORE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ -][A-Z0-9]{4})*[ -]$")
_IBAN_HEAD_REACH = 48


def _card_findings(text: str, ws: int, we: int) -> Iterable[tuple[int, int, str, str]]:
    """``(start, end, kind, detail)`` of each card number in the window: ``credit-card``, or
    :data:`POSSIBLE_CARD` for bare digits after an identifier word ("order", "WO", "job"), which
    the scan cannot tell from that identifier (a number grouped as cards are written,
    ``4111 1111 1111 1111``, is a card whatever word comes before it: a word cannot launder one)."""
    for m in _CARD_CANDIDATE.finditer(text, ws, we):
        if _IBAN_HEAD_BEFORE.search(text, max(0, m.start() - _IBAN_HEAD_REACH), m.start()):
            continue  # the rest of an IBAN in groups (``FR31 8000 5604 ...``): its own rule reads it
        for s, e, issuer in _cards_in(m.group()):
            start, end = m.start() + s, m.start() + e
            grouped = not text[start:end].isdigit()
            word = None if grouped else _NOT_A_CARD_BEFORE.search(text, max(0, start - 24), start)
            if word is None:
                yield start, end, "credit-card", issuer
            else:
                yield start, end, POSSIBLE_CARD, f"{issuer}, or an identifier after {word.group('word')!r}"


def _cards_in(run: str) -> list[tuple[int, int, str]]:
    """Every card number in a run of digits and separators, ``(start, end, issuer)`` within the
    run: the longest first, then the longest of what is left, none overlapping another. A run may
    hold other numbers (``2024 4111 1111 1111 1111 0``), or two cards one space apart
    (``4111111111111111 5500000000000004``), and the second is no less a card."""
    groups = [m.span() for m in _DIGIT_GROUP.finditer(run)]
    if len(groups) == 1:
        found = _card_check(run, 0, len(run))
        return [found] if found else []
    # every run of consecutive groups holding 13 to 19 digits, longest first
    spans = []
    for i in range(len(groups)):
        digits = 0
        for j in range(i, min(len(groups), i + 7)):
            digits += groups[j][1] - groups[j][0]
            if digits > 19:
                break
            if digits >= 13:
                spans.append((i, j))
    spans.sort(key=lambda ij: groups[ij[0]][0] - groups[ij[1]][1])
    taken = [False] * len(groups)
    cards = []
    for i, j in spans:
        if any(taken[i : j + 1]):
            continue
        s, e = groups[i][0], groups[j][1]
        parts = [run[a:b] for a, b in groups[i : j + 1]]
        if len(parts) > 1 and (len(parts[0]) != 4 or not all(3 <= len(p) <= 6 for p in parts[1:])):
            continue
        found = _card_check("".join(parts), s, e)
        if found:
            cards.append(found)
            taken[i : j + 1] = [True] * (j + 1 - i)
    return sorted(cards)


def _card_check(digits: str, s: int, e: int) -> tuple[int, int, str] | None:
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2 or not _luhn_ok(digits):
        return None
    issuer = _card_issuer(digits)
    return (s, e, issuer) if issuer else None


#: from the end of a run of digits: the rest of the word, bounded, so that windows stay short in
#: text without spaces (minified JSON)
_WINDOW_TAIL = 48
_TO_SPACE = re.compile(rf"\S{{0,{_WINDOW_TAIL}}}")


def _end_of(pattern: re.Pattern[str], text: str, pos: int) -> int:
    m = pattern.match(text, pos)
    return m.end() if m else pos


#: a country code and check digits, in any case, then the rest: unbroken, or in groups of four
#: (the last of one to four) separated by spaces, hyphens or dots
_IBAN_CANDIDATE = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}[ -]?\d{2}"
    r"(?:[A-Za-z0-9]{10,30}|(?:[ .-]?[A-Za-z0-9]{4})(?:[ .-][A-Za-z0-9]{4}){1,6}(?:[ .-][A-Za-z0-9]{1,4})?)"
    r"(?![A-Za-z0-9])"
)
_IBAN_SEPARATORS = re.compile(r"[ .-]")


def _iban_findings(text: str) -> Iterable[tuple[int, int, str]]:
    for m in _IBAN_CANDIDATE.finditer(text):
        s = m.group()
        # a grouped IBAN may be followed by an unrelated group: drop trailing groups until valid
        while True:
            compact = _IBAN_SEPARATORS.sub("", s).upper()
            if 15 <= len(compact) <= 34 and _iban.is_valid(compact):
                yield m.start(), m.start() + len(s), "IBAN"
                break
            cut = max(s.rfind(" "), s.rfind("-"), s.rfind("."))
            if cut <= 4:
                break
            s = s[:cut].rstrip(" .-")


def _ssn_ok(value: str) -> bool:
    v = value.replace(" ", "-")
    return _us_ssn.is_valid(v) and v.replace("-", "") != "123456789"


def _nino_ok(value: str) -> bool:
    v = re.sub(r"[\s-]", "", value.upper())
    return bool(re.fullmatch(r"(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]\d{6}[A-D]", v))


#: National ids found on their own: formats distinctive enough (check digits, structure).
#: (pattern, name, validity check, digits it holds at least)
_NATIONAL_ID_RULES: tuple[tuple[re.Pattern[str], str, _Check, int], ...] = (
    (re.compile(r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-]|[.,]\d)"), "US SSN", _ssn_ok, 9),
    (re.compile(r"(?<![\w-])\d{8}-?[A-Z](?![\w-])"), "Spanish DNI", _es_dni.is_valid, 8),
    (re.compile(r"(?<![\w-])[XYZ]-?\d{7}-?[A-Z](?![\w-])"), "Spanish NIE", _es_nie.is_valid, 7),
    (
        re.compile(
            r"(?<![\w.-])[12][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[AB])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2}"
            r"(?![\w-]|[.,]\d)"
        ),
        "French NIR",
        _fr_nir.is_valid,
        6,  # a Corsican one (department 2A or 2B) holds runs of six and eight digits
    ),
)

_CF = re.compile(
    r"(?<![\w-])[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-EHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z](?![\w-])"
)
_CF_GATE = re.compile(r"[A-Z][A-Z]{5}[0-9LMNPQRSTUV]{2}[A-EHLMPRST]")
#: Keywords that enable the keyword-led phone numbers (each phone word holds one)
_PHONE_KEYWORDS = tuple(
    dict.fromkeys(
        (
            *("phone", "tel", "mobil", "cell", "fax", "call", "text", "whatsapp", "sms", "ring", "dial"),
            *("reach", "contact", "landline", "movil", "celular", "llam", "ligar", "ligue", "telem"),
            *("portable", "appel", "joind", "joign", "handy", "festnetz", "anruf", "erreich", "chiam"),
            *("contatt", "bel", "mobiel", "komork", "dzwon", "puh", "soita", "gsm", "cel", "movel"),
            *("natel", "tlf", "kannykka", "mob", "tfn", "tlm", "fon", "ruf", "liga", "soit"),
        )
    )
)
#: Keywords of the ids read here rather than by the catalogue (US SSN, UK NINO, passport numbers)
_ID_KEYWORDS = ("ssn", "social", "insurance", "nino", "ni n", "national", "pas", "aport", "tlev")

#: A passport's keyword in the languages the scan's tables read (``Reisepassnummer``, ``numéro de
#: passeport``, ``pasaporte``, ``passaporto``, ``paspoort``, ``numer paszportu``, ``passnummer``,
#: ``passin numero``, ``číslo pasu``, ``pașaportului``, ``pasaport numarasi``, ``útlevélszám``); a
#: bare ``pass`` or ``pas``, words of their own in English and French, only in a phrase
_PASSPORT = (
    r"passports?|passeports?|pasaportes?|passaportes?|passaport[oi]|paspoort(?:nummer)?|"
    r"(?:reise)?pass(?:nummer|[- ]?nr\.?|[- ]nummer)|reisepass(?:es)?|pasnummer|"
    r"paszport(?:u|em)?|passi(?:n|nnumero|numero)?|pasu|cestovn[ií]ho\s+pasu|cestovn[ýy]\s+pas|"
    r"cestovn[ií]\s+pas|pa[șşs]aport(?:ul|ului)?|pasaport(?:u|un)?|[úu]tlev[ée]l(?:sz[áa]m[a]?)?"
)
#: what may stand between an id's keyword and its value: "number" and the copulas of the same
#: languages, each a whole word (a value's first letters are no filler: ``ES1234567``), or a mark
_ID_FILLER = (
    r"(?:(?:is|was|number|no|num|nr|of|nummer|num[ée]ro|n[úu]mero|numer|numaras[\u0131i]|ist|lautet|est|es"
    r"|[ée]|[èe]|to|jest|[äa]r|er|on|je|este|do|da|de|du|di|del|van)(?![\w])|n[°º]\.?|:|#|\.|-)"
)
_ID_KEYWORD = re.compile(
    r"(?i:\b(?P<kw>ssn|social\s+security(?:\s+(?:number|no|num))?|"
    r"national\s+insurance(?:\s+(?:number|no|num))?|nino|ni\s+(?:number|no)|"
    r"national\s+id(?:entity|entification)?(?:\s+(?:card\s+)?(?:number|no|num))?|"
    rf"(?:{_PASSPORT})(?:\s+(?:number|no|num))?)\b)"
    rf"(?:\s*(?i:{_ID_FILLER})){{0,3}}\s*"
    r"(?P<val>[A-Z0-9](?:[A-Z0-9]|[ .-](?=[A-Z0-9])){5,19})(?![\w-])"
)
_PASSPORT_KEYWORD = re.compile(rf"(?i:(?:{_PASSPORT})(?:\s+(?:number|no|num))?)")


def _keyword_id_ok(keyword: str, value: str) -> str | None:
    kw = keyword.lower()
    compact = re.sub(r"[\s.-]", "", value)
    if _PASSPORT_KEYWORD.fullmatch(keyword):
        ok = 6 <= len(compact) <= 9 and any(c.isdigit() for c in compact) and compact.isalnum()
        return "passport number" if ok else None
    if "national insurance" in kw or kw in ("nino",) or kw.startswith("ni "):
        return "UK national insurance number" if _nino_ok(value) else None
    # every other id after these words is the catalogue's (:mod:`._national_ids`)
    return "US SSN" if _ssn_ok(compact) else None


def _national_id_findings(text: str, ws: int, we: int, digits: int) -> Iterable[tuple[int, int, str]]:
    for pattern, name, check, min_digits in _NATIONAL_ID_RULES:
        if digits < min_digits:
            continue
        for m in pattern.finditer(text, ws, we):
            # a number an order or a reference names is that, not an id read on its own shape
            # ("Referencia del pedido: 12345678Z", "order 12345678Z")
            if check(m.group()) and not _NAMED_OTHER_BEFORE.search(text, max(0, m.start() - 40), m.start()):
                yield m.start(), m.end(), name


#: A word of an order, an invoice, a reference, a case file, a claim, a policy... in the seven
#: languages (not "id" or "document": those name an id; not a person, "DNI del cliente:" is the
#: client's DNI), and nothing but a colon, "number" and such between it and the number
_NAMED_OTHER_BEFORE = re.compile(
    r"(?i:\b(?:p/?n|s/?n|part|serial|order|invoice|ticket|ref|reference|case|tracking|item|sku|booking|receipt|"
    r"transaction|txn|shipment|parcel|confirmation|pedido|referencia|r[e\u00e9]f[e\u00e9]rence|factura|fatura|"
    r"encomenda|commande|facture|"
    r"bestelling|bestellung|bestellnummer|auftrag|rechnung|ordine|fattura|riferimento|referentie|factuur|"
    # a case file, a claim, a policy, a contract, an account, a customer's number
    r"file|dossier|expediente|processo|pratica|akte|aktenzeichen|dossiernummer|claim|claimnummer|"
    r"siniestro|sinistro|sinistre|schadennummer|schadenummer|policy|polis|polisnummer|p[o\u00f3]liza|"
    r"ap[o\u00f3]lice|polizza|contract|contrato|contratto|contrat|vertrag|vertragsnummer|contractnummer|"
    r"account|cuenta|conta|conto|konto|rekening|compte|kundennummer|klantnummer))"
    r"(?:\s+(?:del|de|du|da|do|van|der|des|dell[a']|of)\s+\w+)?(?:\s*(?:no\.?|n\.?[\u00ba\u00b0o]\.?|nr\.?|number|num|"
    r"n[u\u00fa]mero|num[e\u00e9]ro|nummer|numero|#|code))?\s*[:#]?\s*$"
)


def _keyword_id_findings(text: str) -> Iterable[tuple[int, int, str]]:
    for m in _ID_KEYWORD.finditer(text):
        value = m.group("val")
        # the value may run into the next word ("SSN 123456789 I cannot"): drop words until valid
        while True:
            name_or_none = _keyword_id_ok(m.group("kw"), value)
            if name_or_none:
                yield m.start("val"), m.start("val") + len(value), name_or_none
                break
            if " " not in value:
                break
            value = value.rsplit(" ", 1)[0]


def _codice_fiscale_findings(text: str) -> Iterable[tuple[int, int, str]]:
    for m in _CF_GATE.finditer(text):
        cm = _CF.match(text, m.start())
        if cm and _it_cf.is_valid(cm.group()):
            yield cm.start(), cm.end(), "Italian codice fiscale"


#: Letters that may start an id before its first digit: a country code or the letters of the
#: number itself (``HR 33392005961``, ``X-2482300-W``, a Mexican RFC ``GODE 561231 GR8``)
_ID_LETTERS = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,4}[ -]?$")


def _catalogue_findings(text: str, run: int, ws: int, we: int) -> Iterable[tuple[int, int, str]]:
    """The catalogue's ids at the run of digits at ``run``: after a keyword (the value starting at
    the run, or at the letters before it), and in a distinctive format inside the window."""
    lead = _ID_LETTERS.search(text, max(0, run - 5), run)
    for start in (run,) if lead is None else (lead.start(), run):
        found = _national_ids.keyword_finding(text, start)
        if found is not None:
            yield found
            break
    yield from _national_ids.shape_findings(text, ws, we)


#: Strength of each kind where readings overlap: the strongest is reported. An ambiguous reading
#: is below every other (a token glued to a word is 1000 below its rule's: ``_secrets._GLUED``), so a
#: confident reading of the same characters always wins and covers it.
_AMBIGUOUS = {POSSIBLE_CARD: -10_000}
PRIORITY = {"iban": 50, "credit-card": 45, "national-id": 40, "phone": 30, "email": 20} | _AMBIGUOUS


#: A run of digits and separators: every digit-based finding but an IBAN (phone, card, national id)
#: holds one with at least 6 digits; the specific patterns then run only
#: near such runs, so a typical answer costs a few passes, not one per pattern.
_CLUSTER = re.compile(r"\d[\d \-.()/]{5,}")
_DECIMAL = re.compile(r"\d{1,3}\.\d+")
_MIN_CLUSTER_DIGITS = 6
#: How far before a run a finding may start (a phone's "+44 (0)", an id's letters)
_LOOK_BACK = 12


def _digits_on(text: str, end: int) -> int:
    """Where the digits going on from ``end`` stop: more groups after one separator each (a run
    longer than any phone number a keyword leads is still one run of its digits)."""
    n = len(text)
    while end < n and (
        text[end].isdigit() or (text[end] in " .-" and end + 1 < n and text[end + 1].isdigit())
    ):
        end += 1
    return end


#: Kinds read in runs of digits: one found in the run a phone keyword leads covers that run
_DIGIT_KINDS = frozenset({"phone", "national-id", "credit-card", POSSIBLE_CARD})


#: The conditions of :func:`_gate`, in this order
_OB_EMAIL, _IBAN, _CODICE_FISCALE, _KEYWORD_PHONE = range(4)


def _strip_lookahead(pattern: str, lookahead: str) -> str:
    assert pattern.endswith(lookahead)
    return pattern.removesuffix(lookahead)


@functools.cache
def _gate() -> Prefilter:
    """What each whole-text reading needs, for one prefilter pass (a reading whose condition is
    absent finds nothing): an address written out needs an "at" with a local part before it and a
    domain after it; an IBAN its candidate; a codice fiscale its gate; a keyword-led phone number
    the keyword and its digits. The look-arounds that bound them are left out (a condition may
    match more than its reading, never less)."""
    return Prefilter(
        [
            rf"[A-Za-z0-9._%+-][ \t]*(?:{_OB_AT.pattern})[ \t]*"
            + _strip_lookahead(_OB_DOMAIN.pattern, r"(?![\w-]|\.[A-Za-z0-9])"),
            _IBAN_CANDIDATE.pattern.removeprefix("(?<![A-Za-z0-9])").removesuffix("(?![A-Za-z0-9])"),
            _CF_GATE.pattern,
            _PHONE_KEYWORD.pattern,
        ]
    )


def pii_findings(text: str) -> Iterator[Raw]:
    """Every piece of personal data in ``text`` (see the module documentation).

    A number found in the digits a phone keyword leads, by any reading (a phone number some region
    reads in part, a national id), covers those digits to their end: the run is one number, and
    its other digits must not be left in clear beside the finding ("phone: 325 120 1645")."""
    maybe = _gate().possible(text)
    low = text.lower()
    if _KEYWORD_PHONE not in maybe or not any(k in low for k in _PHONE_KEYWORDS):
        yield from _pii_readings(text, maybe)
        return
    led = list(_phone_keyword_candidates(text))
    runs = [(s, _digits_on(text, e)) for s, e, _ in led]
    for s, e, priority, kind, detail, value in _pii_readings(text, maybe, led):
        if kind in _DIGIT_KINDS:
            for rs, re_ in runs:
                if rs < e and s < re_:
                    s, e = min(s, rs), max(e, re_)
        yield s, e, priority, kind, detail, value


def _pii_readings(
    text: str, maybe: frozenset[int], led: list[tuple[int, int, tuple[str, ...]]] | None = None
) -> Iterator[Raw]:
    """The readings; ``led``: the numbers phone words lead, when the caller has them already."""
    if "@" in text:
        for m in _EMAIL.finditer(text):
            if (
                _email_is_personal(m.group())
                and not _after_url_password(text, m.start())
                and not _remote_login(text, m.start(), m.end())
            ):
                yield m.start(), m.end(), PRIORITY["email"], "email", "", None
    for s, e, address in _obfuscated_emails(text) if _OB_EMAIL in maybe else ():
        yield s, e, PRIORITY["email"], "email", "written out", address
    for s, e, detail in _iban_findings(text) if _IBAN in maybe else ():
        yield s, e, PRIORITY["iban"], "iban", detail, None
    for s, e, detail in _codice_fiscale_findings(text) if _CODICE_FISCALE in maybe else ():
        yield s, e, PRIORITY["national-id"], "national-id", detail, None
    low = text.lower()
    if any(k in low for k in _ID_KEYWORDS):  # a passport number may hold fewer than six digits
        for s, e, detail in _keyword_id_findings(text):
            yield s, e, PRIORITY["national-id"], "national-id", detail, None
    clusters = [
        (c, n)
        for c in _CLUSTER.finditer(text)
        if (n := sum(map(str.isdigit, c.group()))) >= _MIN_CLUSTER_DIGITS
    ]
    if not clusters:
        return
    phone_candidates: list[tuple[int, int, str | tuple[str, ...] | None]] = []
    if _KEYWORD_PHONE in maybe and any(k in low for k in _PHONE_KEYWORDS):
        phone_candidates.extend(_phone_keyword_candidates(text) if led is None else led)
    n = len(text)
    for c, digits in clusters:
        if _DECIMAL.fullmatch(c.group().rstrip(" .-/")):
            continue  # a plain decimal figure (0.8444218515250481): no phone, card or id is one
        # the window: a little before the run, to the next whitespace after it (so that a
        # pattern's look-ahead at the window's end sees a real boundary), at most a few dozen
        # characters on: a match that ends where a cut window ends is not trusted
        ws = max(0, c.start() - _LOOK_BACK)
        we = _end_of(_TO_SPACE, text, c.end())
        cut = we if we < n and not text[we].isspace() else -1
        found: list[tuple[int, int, int, str, str, str | None]] = []
        run = c.group()
        # a run of digits alone (no separator), not after "+" and not a trunk "0...": no phone shape
        bare = run.isdigit() and not run.startswith("0") and not (c.start() and text[c.start() - 1] == "+")
        if digits >= 7 and not bare:
            phone_candidates.extend(pc for pc in _phone_candidates(text, ws, we) if pc[1] != cut)
        if digits >= 13:
            for s, e, kind, detail in _card_findings(text, ws, we):
                found.append((s, e, PRIORITY[kind], kind, detail, None))
        for s, e, detail in _catalogue_findings(text, c.start(), ws, we):
            if e != cut:
                found.append((s, e, PRIORITY["national-id"], "national-id", detail, None))
        if not bare or digits >= 13 or (c.end() < n and text[c.end()] in "-ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
            # (a bare run is an id only as a NIR, 13+ digits, or a DNI/NIE, or a Corsican NIR, with a
            # letter after it)
            for s, e, detail in _national_id_findings(text, ws, we, digits):
                found.append((s, e, PRIORITY["national-id"], "national-id", detail, None))
        yield from (f for f in found if f[1] != cut)
    for s, e, detail in _phone_findings(text, dict.fromkeys(phone_candidates)):
        yield s, e, PRIORITY["phone"], "phone", detail, None
