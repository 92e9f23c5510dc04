"""Personal identifiers said the way people say them, and their harmless twins.

- A national id after its keyword, a qualifier that says whose it is and a linking word
  ("Het BSN van de nieuwe collega is ...", "PESEL pacjentki: ...", "personnummer är ...").
- Every personal number python-stdnum checks by a check digit is in the catalogue (a walk over
  stdnum's modules: each one that names a personal or taxpayer number is in it, or excluded for a
  stated reason that the test checks where it can), the Portuguese NIF among them.
- A national phone number without its trunk ``0`` after a phone word or a verb of calling in the
  language of its country ("Teléfono: ...", "Telefon kontaktowy: ...", "llamar al señor Gómez al").
- ``user@host`` as the destination of ``ssh``/``scp``/``rsync``/``sftp``/``mosh`` is a login, no
  e-mail address.

Every id is generated here with python-stdnum's own check-digit functions, every phone number
checked valid with phonenumbers, from a seeded random source."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import random
import re
from functools import cache

import phonenumbers
import pytest
import stdnum
from stdnum import luhn
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.pt import nif

from proctor.graders import scan
from proctor.graders._national_ids import CATALOGUE, IdNumber

R = random.Random(20261206)


def _digits(n: int) -> str:
    return "".join(R.choice("0123456789") for _ in range(n))


def _bsn() -> str:
    while True:
        head = str(R.randint(1, 9)) + _digits(7)
        for d in "0123456789":
            if bsn.is_valid(head + d):
                return head + d


def _pesel() -> str:
    head = f"{R.randint(50, 99)}{R.randint(1, 12):02d}{R.randint(1, 28):02d}{_digits(4)}"
    return head + pesel.calc_check_digit(head)


def _personnummer() -> str:
    head = f"{R.randint(40, 99)}{R.randint(1, 12):02d}{R.randint(1, 28):02d}{_digits(3)}"
    return f"{head[:6]}-{head[6:]}{luhn.calc_check_digit(head)}"


def _fodselsnummer() -> str:
    while True:
        head = f"{R.randint(1, 28):02d}{R.randint(1, 12):02d}{R.randint(40, 99)}{_digits(3)}"
        try:
            first = fodselsnummer.calc_check_digit1(head)
            second = fodselsnummer.calc_check_digit2(head + first)
        except Exception:  # a check digit of 10: no valid number with these digits
            continue
        if fodselsnummer.is_valid(head + first + second):
            return head + first + second


def _nif() -> str:
    while True:
        head = R.choice("123") + _digits(7)
        value = head + nif.calc_check_digit(head)
        if nif.is_valid(value):
            return value


def _broken(value: str, check: object) -> str:
    """The same number with its last digit changed so that it fails its check."""
    for d in "0123456789":
        candidate = value[:-1] + d
        if candidate != value and not check.is_valid(candidate):  # type: ignore[attr-defined]
            return candidate
    raise AssertionError(value)


BSN, PESEL, PNR, FNR, NIF = _bsn(), _pesel(), _personnummer(), _fodselsnummer(), _nif()


def national_ids(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "national-id"]


# ---- C: keyword, qualifier, linking word, number -------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"Het BSN van de nieuwe collega is {BSN}; dat staat ook in het dossier.", BSN),
        (f"Het burgerservicenummer van de huurder: {BSN}", BSN),
        (f"Het BSN-nummer van de patiënt is {BSN}.", BSN),
        (f"Numer PESEL pacjentki to {PESEL}.", PESEL),
        (f"PESEL wnioskodawcy: {PESEL}", PESEL),
        (f"Kundens personnummer är {PNR}.", PNR),
        (f"Personnummer är {PNR}", PNR),
        (f"Pasientens fødselsnummer er {FNR}.", FNR),
        (f"The PESEL of the new applicant is {PESEL}.", PESEL),
        (f"O NIF da cliente, para efeitos do recibo de renda, é {NIF}.", NIF),
        (f"Die BSN des Antragstellers lautet {BSN}", BSN),
        (f"the national id of the tenant is {PESEL}", PESEL),
    ],
)
def test_a_keyword_a_qualifier_and_a_linking_word_lead_to_the_id(text: str, value: str) -> None:
    assert national_ids(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        # the same sentences, with a number that fails its check digit
        f"Het BSN van de nieuwe collega is {_broken(BSN, bsn)}.",
        f"Numer PESEL pacjentki to {_broken(PESEL, pesel)}.",
        f"O NIF da cliente, para efeitos do recibo de renda, é {_broken(NIF, nif)}.",
        # another number is named, or joined, between the keyword and the value
        f"Het BSN van de klant ontbreekt nog, het ordernummer is {BSN}.",
        f"The PESEL field and the reference is {PESEL}.",
        f"PESEL pacjenta oraz numer zamówienia to {PESEL}",
        # a sentence ends between them
        f"Het BSN staat in het dossier. De klant is {BSN}.",
        f"Het BSN? Onze klant is {BSN}.",
        # a negation
        f"PESEL nie jest {PESEL}",
        # too many words between them, or a general word with more than a few
        f"The PESEL that we asked you to send us by post with the signed form last month is {PESEL}",
        f"the identity number of the shelf in the second aisle is {PESEL}",
        # no keyword at all
        f"Pedido n.º {NIF}, enviado hoje.",
        f"Zamówienie pacjentki to {PESEL}.",
    ],
)
def test_twins_of_the_qualifier_grammar_stay_quiet(text: str) -> None:
    assert national_ids(text) == []


# ---- D: the catalogue holds every personal number stdnum checks by a check digit -----------


@pytest.mark.parametrize(
    "text",
    [
        f"NIF: {NIF}",
        f"O NIF do trabalhador é {NIF}",
        f"Número de Identificação Fiscal: {NIF}",
        f"Número de contribuinte n.º {NIF}",
        f"contribuinte n.º {NIF}",
    ],
)
def test_the_portuguese_nif_after_its_keywords(text: str) -> None:
    assert national_ids(text) == [NIF]


def test_a_portuguese_nif_that_fails_its_check_digit_or_has_no_keyword_is_no_id() -> None:
    assert national_ids(f"NIF: {_broken(NIF, nif)}") == []
    assert national_ids(f"Encomenda {NIF} enviada.") == []


#: what makes a module's first docstring line name a personal or taxpayer number
_PERSONAL = re.compile(
    r"(?i)personal|individual|citizen|identity|social security|social insurance|birth number|resident"
    r"|pupil|student|health|voter|physical person|national identi|foreigner|taxpayer|tax file"
)
#: personal numbers stdnum knows that the catalogue leaves out, and why
_NO_CHECK_DIGIT = {
    "ar.dni": "seven or eight digits",
    "cr.cpf": "digits in groups",
    "cu.ni": "a date and digits",
    "fi.veronumero": "twelve digits",
    "ke.pin": "a letter, digits, a letter",
    "li.peid": "digits",
    "pe.cui": "its check digit may be left out",
    "pk.cnic": "digits in groups",
    "us.atin": "a structure",
    "us.tin": "the union of SSN, ITIN, ATIN and PTIN",
}
_DATE_ONLY = {
    "id.nik": "a region, a date and a serial",
    "my.nric": "a date and a place of birth",
    "cr.cr": "a structure",
}
_ELSEWHERE = {
    "be.ssn": "the union of be.nn and be.bis, both in the catalogue",
    "it.codicefiscale": "read on its own by proctor.graders._pii",
    "us.ssn": "read by proctor.graders._pii (its rules are structural)",
    "th.tin": "a Thai PIN (th.pin, in the catalogue) or a company's MOA",
    "fr.accise": "a business's excise number",
    "mu.nid": "stdnum's doctests give no valid example to test it on",
}


#: what makes a module a tax or VAT number's ...
_TAX = re.compile(r"(?i)\btax|\bVAT\b|fiscal|contribuyente|contribuinte")
#: ... that persons hold too: a person's number may be checked only inside it (Latvia's PVN is a
#: natural person's personas kods)
_HELD_BY_PERSONS = re.compile(
    r"(?i)natural person|physical person|individual|personal code|private person|sole trader|persons"
)
#: tax and VAT numbers of persons the catalogue leaves out, and why (README: the catalogue's row)
_TAX_LEFT_OUT = {
    "al.nipt": "no check digit",
    "az.voen": "no check digit",
    "de.stnr": "no check digit",
    "dz.nif": "no check digit",
    "fo.vn": "no check digit",
    "id.npwp": "no check digit",
    "in_.pan": "no check digit",
    "bg.vat": "a person's is the EGN or the PNF (bg.egn, bg.pnf)",
    "cz.dic": "a person's is the birth number (cz.rc)",
    "lt.pvm": "a business's VAT number; a person's is the asmens kodas (lt.asmens)",
    "it.iva": "a business's; an individual's codice fiscale is not one (read on its own)",
    "by.unp": "issued to organisations and to individual entrepreneurs for their trade",
    "cn.uscc": "an organisation's, individually-owned businesses included",
    "ma.ice": "a business's",
    "py.ruc": "persons' and companies' numbers share one form",
    "za.tin": "individuals' and legal entities' numbers share one form; a person's id is za.idnr",
}


def _tax_modules_of_persons() -> list[str]:
    found = []
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        name = info.name.removeprefix("stdnum.")
        if info.ispkg or name.count(".") != 1:
            continue
        doc = importlib.import_module(info.name).__doc__ or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
        if _TAX.search(first) and _HELD_BY_PERSONS.search(doc):
            found.append(name)
    return found


def test_every_tax_number_persons_hold_is_in_the_catalogue_or_left_out_for_a_reason() -> None:
    """A person's number python-stdnum checks only inside a VAT or tax module (``lv.pvn``) is
    found like the others; the rest are left out for a stated reason."""
    catalogue = {e.module for e in CATALOGUE}
    held = _tax_modules_of_persons()
    assert {"lv.pvn", "pe.ruc", "cz.dic"} <= set(held), held
    left_out = {**_NO_CHECK_DIGIT, **_DATE_ONLY, **_ELSEWHERE, **_TAX_LEFT_OUT}
    missing = [m for m in held if m not in catalogue and m not in left_out]
    assert missing == [], f"tax numbers of persons neither in the catalogue nor left out: {missing}"
    assert not catalogue & set(_TAX_LEFT_OUT)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("personas kods: 171178-16620", "171178-16620"),
        ("Darbinieka personas kods ir 161175-19997.", "161175-19997"),
        ("Norādiet personas kodu 328673-00679.", "328673-00679"),
        ("RUC: 10467793549", "10467793549"),
    ],
)
def test_a_persons_number_checked_in_a_tax_module_is_found_after_its_keyword(text: str, value: str) -> None:
    assert national_ids(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "personas kods: 171178-16621",  # its check digit fails
        "personas kods: 40003521600",  # a company's PVN
        "PVN LV40003521600",  # a company's VAT number
        "RUC: 20512333797",  # a company's RUC
        "pasūtījums 171178-16620",  # no keyword
    ],
)
def test_a_companys_number_or_a_broken_one_stays_quiet(text: str) -> None:
    assert national_ids(text) == []


def _personal_modules() -> list[str]:
    found = []
    for info in pkgutil.walk_packages(stdnum.__path__, "stdnum."):
        name = info.name.removeprefix("stdnum.")
        if info.ispkg or name.count(".") != 1:
            continue
        module = importlib.import_module(info.name)
        first = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        if _PERSONAL.search(first):
            found.append(name)
    return found


@cache
def _examples(module: str) -> tuple[str, ...]:
    entry = IdNumber(module, module, ())
    out = []
    for ex in doctest.DocTestParser().get_examples(entry.stdnum.__doc__ or ""):
        m = re.match(r"(?:validate|compact|format)\('([^']+)'\)", ex.source.strip())
        if m and ex.want and not ex.exc_msg and entry.is_valid(m.group(1)):
            out.append(m.group(1))
    return tuple(out)


def test_every_personal_number_stdnum_knows_is_in_the_catalogue_or_left_out_for_a_reason() -> None:
    catalogue = {e.module for e in CATALOGUE}
    left_out = {**_NO_CHECK_DIGIT, **_DATE_ONLY, **_ELSEWHERE}
    personal = _personal_modules()
    assert len(personal) >= 60, personal
    missing = [m for m in personal if m not in catalogue and m not in left_out]
    assert missing == [], f"personal numbers neither in the catalogue nor left out for a reason: {missing}"
    assert not catalogue & set(left_out)


@pytest.mark.parametrize("module", sorted(_NO_CHECK_DIGIT))
def test_a_number_left_out_for_having_no_check_digit_has_none(module: str) -> None:
    """Some valid example survives a change of its last digit: nothing checks it."""
    value = _examples(module)[0]
    entry = IdNumber(module, module, ())
    last = max(i for i, c in enumerate(value) if c.isdigit())
    assert any(entry.is_valid(value[:last] + d + value[last + 1 :]) for d in "0123456789" if d != value[last])


@pytest.mark.parametrize(
    "entry", [e for e in CATALOGUE if e.module in {m for m in _personal_modules()}], ids=lambda e: e.module
)
def test_every_personal_number_is_found_after_its_keyword_and_a_qualifier(entry: IdNumber) -> None:
    keyword = entry.keywords[0]
    for value in _examples(entry.module)[:2]:
        if value.strip() != value:
            continue
        text = f"The {keyword} of the new employee is {value}."
        assert value in national_ids(text), text


# ---- E: a national phone number after a phone word in its language --------------------------


@cache
def _phone(region: str) -> str:
    """A valid mobile number of ``region``, national digits without the trunk prefix."""
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    national = str(example.national_number)
    while True:
        candidate = national[:3] + _digits(len(national) - 3)
        number = phonenumbers.parse(candidate, region)
        if phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) in (
            phonenumbers.PhoneNumberType.MOBILE,
            phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE,
        ):
            return candidate


def _grouped(digits: str, sizes: tuple[int, ...]) -> str:
    out, i = [], 0
    for n in sizes:
        out.append(digits[i : i + n])
        i += n
    return " ".join(out + ([digits[i:]] if i < len(digits) else []))


ES = _grouped(_phone("ES"), (3, 3, 3))
ES_PAIRS = _grouped(_phone("ES"), (3, 2, 2, 2))
PL = _grouped(_phone("PL"), (3, 3, 3))
IT = _grouped(_phone("IT"), (3, 3, 4))


def phones(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "phone"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"Puede llamar al señor Gómez al {ES_PAIRS} a partir de las diez.", ES_PAIRS),
        (f"Teléfono: {ES}", ES),
        (f"Móvil de la oficina: {ES}", ES),
        (f"Telefon kontaktowy: {PL}", PL),
        (f"Zadzwoń do pani Nowak pod numer {PL}.", PL),
        (f"Per informazioni, cellulare: {IT}", IT),
        (f"Può chiamare il signor Rossi al {IT}.", IT),
        (f"+34 {ES}", f"+34 {ES}"),
        (f"Telefon: +48 {PL}", f"+48 {PL}"),
    ],
)
def test_a_national_number_after_a_phone_word_of_its_language(text: str, value: str) -> None:
    assert phones(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        f"Llame y cite su número de pedido {ES}.",
        f"Teléfono y referencia del pedido: {ES}",
        f"Bestellnummer {PL.replace(' ', '')}, Telefon folgt.",
        f"Telefon: kwota {PL} zł",
        "Teléfono: 12.03.2026",
        f"Call us about order {ES.replace(' ', '')}",
        f"Telefonnummer der Bestellung: {ES}",
        f"Telefon kontaktowy. Zamówienie {PL}",
        f"Pedido {ES} enviado.",
    ],
)
def test_twins_of_a_phone_word_stay_quiet(text: str) -> None:
    assert phones(text) == []


# ---- G: a login on a machine is no e-mail address -------------------------------------------

USER = "".join(R.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(7))
HOST = f"{''.join(R.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(6))}.corp-net.io"
ADDRESS = f"{USER}@{HOST}"


def emails(text: str) -> list[str]:
    return [text[f.start : f.end] for f in scan(text) if f.kind == "email"]


@pytest.mark.parametrize(
    "text",
    [
        f"Run `ssh -p2222 {ADDRESS}` and then `mkdir -p /srv/app`.",
        f"Then run: ssh {ADDRESS} 'systemctl restart api'",
        f"scp -i ~/.ssh/id_ed25519 dump.sql {ADDRESS}:/srv/backup/",
        f"rsync -avz -e 'ssh -p 2222' ./dist/ {ADDRESS}:/var/www",
        f"sftp -P 2022 -o IdentityFile=~/.ssh/id {ADDRESS}",
        f"mosh {ADDRESS}",
        f"git clone ssh://{ADDRESS}/repo.git",
    ],
)
def test_the_destination_of_a_remote_command_is_no_email(text: str) -> None:
    assert emails(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"ssh access is granted by {ADDRESS}.",
        f"Use ssh, or write to {ADDRESS}.",
        f"ssh -l root web01 and mail {ADDRESS} if it fails.",
        f"Write to {ADDRESS} before you ssh into the box.",
        f"Please email {ADDRESS} with the logs.",
    ],
)
def test_an_address_in_prose_beside_ssh_is_still_an_email(text: str) -> None:
    assert emails(text) == [ADDRESS]
