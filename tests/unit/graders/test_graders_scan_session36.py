"""Shapes of secrets and identifiers the scan's earlier rules misread, each beside the harmless twin
that must keep the other verdict.

- A vendor token whose random body holds no digit (a Hugging Face token is 34 letters as often as
  not; any base62 body may lack one) is that vendor's token, in prose and as an assignment's value;
  a placeholder in the token's shape (filler, words joined in camelCase, ``hf_YOUR_TOKEN_HERE``, a
  variable) stays quiet.
- A company's or a taxpayer's number after its word is no phone number also when a few words saying
  whose it is and a linking word stand between them (``Partita IVA del promotore dello studio:``);
  a phone's word in the same place still leads a phone number.
- A value a CI runner masked in full (GitLab's ``[MASKED]``, GitHub Actions' ``***``, Jenkins'
  ``****``) shows no secret, as a URL's password or an assignment's value; a real password in the
  same URL still fires.
- ``user@host`` as ssh_config's ``ProxyJump`` destination, as the ``user@host:path`` of scp, rsync
  and a git remote, or after a script's variable on an ssh line is a login, not an e-mail address;
  an address in a comment of the same file still is one.
"""

from __future__ import annotations

import pytest

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


# --- 1. a vendor token of letters alone ----------------------------------------------------------

HF = "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"
HF2 = "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"
HF_PROSE = [
    "The Hugging Face token ({t}) was revoked this morning after the leak.",
    "Le jeton Hugging Face {t} a fuité dans le dépôt public, révoquez-le.",
    "Das Hugging-Face-Token {t} stand im öffentlichen Notebook.",
    "El token de Hugging Face ({t}) quedó expuesto en el registro de la CI.",
    "O token do Hugging Face ({t}) foi revogado ontem à noite.",
    "Il token di Hugging Face {t} è finito nel log della pipeline.",
    "Het Hugging Face-token {t} stond in de gedeelde notebook.",
    "Token Hugging Face {t} trafił do publicznego repozytorium.",
]


@pytest.mark.parametrize("sentence", HF_PROSE)
@pytest.mark.parametrize("token", [HF, HF2])
def test_a_hugging_face_token_of_letters_alone_fires_in_prose(sentence: str, token: str) -> None:
    text = sentence.format(t=token)
    assert found(text) == [("huggingface-token", token)], text


HF_ASSIGNMENTS = [
    "HF_TOKEN={t}",
    'export HUGGING_FACE_HUB_TOKEN="{t}"',
    "hf_token: {t}",
    '{{"token": "{t}"}}',
    "huggingface-cli login --token {t}",
    "HF_TOKEN={t} python train.py",
]


@pytest.mark.parametrize("line", HF_ASSIGNMENTS)
def test_a_hugging_face_token_of_letters_alone_fires_as_its_kind_when_assigned(line: str) -> None:
    text = line.format(t=HF)
    assert found(text) == [("huggingface-token", HF)], text


HF_PLACEHOLDERS = [
    "hf_" + "x" * 34,
    "hf_" + "X" * 34,
    "hf_" + "Xx" * 17,
    "hf_YourHuggingFaceAccessTokenHereX",  # words joined in camelCase
    "hf_HFTokenGoesRightHereForTheDemoo",
    "hf_ReplaceWithYourOwnAccessTokenNow",
    "hf_YOUR_TOKEN_HERE",
    "hf_your_token_here",
    "hf_<your token>",
    "$HF_TOKEN",
    "${HF_TOKEN}",
]


@pytest.mark.parametrize("placeholder", HF_PLACEHOLDERS)
@pytest.mark.parametrize(
    "line",
    [
        *HF_ASSIGNMENTS,
        "O token do Hugging Face ({t}) vai no ficheiro .env.",
        "Remplacez {t} par votre jeton Hugging Face.",
        "Ersetze {t} durch dein eigenes Token.",
    ],
)
def test_a_placeholder_in_a_hugging_face_tokens_shape_stays_quiet(placeholder: str, line: str) -> None:
    text = line.format(t=placeholder)
    assert found(text) == [], text


#: other vendors whose random body may hold no digit (letters alone), each with its kind
LETTER_TOKENS = [
    ("npm-token", "npm_DPGsCUfptnKkleUpxBTIbNywFkIKUqfgPDno"),
    ("newrelic-api-key", "NRII-SUwjXiYlIOfEYrrsaItSJdtcFUfyRhtA"),
    ("doppler-token", "dp.pt.ylrumisCBgOWlhiDRttJCcKkyfPdupFpwgBxjxwthDN"),
    ("vault-token", "hvs.AAPAzfkGHNOLWSwkQbeTMVHq"),
    ("openai-api-key", "sk-proj-llyUCzrHjOfVSGAxTZaBKMlGaQuuiUGSSmgWFfyofVtjbokV"),
]


@pytest.mark.parametrize(("kind", "token"), LETTER_TOKENS)
@pytest.mark.parametrize(
    "sentence",
    [
        "The old key {t} still works, rotate it.",
        "Der alte Schlüssel {t} funktioniert noch.",
        "La clé {t} est toujours active.",
        "SECRET={t}",
    ],
)
def test_other_vendor_tokens_of_letters_alone_fire(kind: str, token: str, sentence: str) -> None:
    text = sentence.format(t=token)
    assert found(text) == [(kind, token)], text


@pytest.mark.parametrize(
    "token",
    [
        "npm_YourNpmAutomationTokenGoesRightHere",
        "NRII-YourNewRelicInsertKeyGoesHereNow",
        "dp.pt.ReplaceThisWithYourPersonalDopplerTokenNow",
        "hvs.YourVaultTokenGoesHereNow",
        "npm_" + "abcdefghijklmnopqrstuvwxyzabcdefghij",
    ],
)
def test_their_placeholders_in_words_stay_quiet(token: str) -> None:
    text = f"Set it to {token} in the pipeline."
    assert found(text) == [], text


AWS_LETTERS = "eUPRjRThCgFIHKbbGOBeBzKPPkygKFpUQASaVpbU"


@pytest.mark.parametrize(
    "line",
    ["AWS_SECRET_ACCESS_KEY={v}", "aws_secret_access_key = {v}", "The AWS secret key is {v}"],
)
def test_an_aws_secret_key_of_letters_alone_fires(line: str) -> None:
    text = line.format(v=AWS_LETTERS)
    assert found(text) == [("aws-secret-key", AWS_LETTERS)], text


def test_an_aws_secret_key_of_words_joined_stays_quiet() -> None:
    assert found("aws_secret_access_key = ThisIsNotARealSecretKeyJustAPlaceholde") == []


# --- 2. a company's or a taxpayer's number with a qualifier --------------------------------------

TAX_QUALIFIED = [
    "Partita IVA del promotore dello studio: {n}",
    "La partita IVA della ditta appaltatrice è {n}.",
    "USt-IdNr. des Auftraggebers: {n}",
    "Die Steuernummer des Mandanten lautet {n}.",
    "Numéro de TVA du fournisseur : {n}",
    "Le SIRET de l'établissement principal : {n}",
    "NIF de la empresa: {n}",
    "El CIF del proveedor es {n}.",
    "O NIPC da empresa fornecedora é {n}.",
    "btw-nummer van de klant: {n}",
    "Het KvK-nummer van de leverancier is {n}.",
    "VAT number of the supplier: {n}",
    "Partita IVA - numero del fornitore: {n}",  # the word and its noun apart, a hyphen between
    "The EIN of the sponsoring company is {n}.",
    "Numer NIP dostawcy: {n}",
]
TAX_NUMBERS = ["05119070083", "020 7946 0958", "0511 9070083"]


@pytest.mark.parametrize("sentence", TAX_QUALIFIED)
@pytest.mark.parametrize("number", TAX_NUMBERS)
def test_a_tax_number_with_a_qualifier_is_no_phone(sentence: str, number: str) -> None:
    text = sentence.format(n=number)
    assert found(text) == [], text


@pytest.mark.parametrize(
    "sentence",
    [
        "Telefono del promotore dello studio: {n}",  # a phone's word in its place
        "Partita IVA e telefono del promotore: {n}",  # a conjunction joins another thing
        "Telefon des Auftraggebers: {n}",
        "Téléphone du fournisseur : {n}",
        "Teléfono de la empresa: {n}",
        "Telefoon van de klant: {n}",
        "Phone of the supplier: {n}",
        "Partita IVA del promotore dello studio: 05119070083. Chiamare il {n}",
        # a tax word that is also an ordinary word, in small letters and without its noun
        "Das ist ein Kollege aus Berlin: {n}",
        "A tin of paint for the office: {n}",
    ],
)
def test_a_phone_in_the_same_place_still_fires(sentence: str) -> None:
    text = sentence.format(n="020 7946 0958")
    assert found(text) == [("phone", "020 7946 0958")], text


# --- 3. a CI runner's mask ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "git clone https://gitlab-ci-token:[MASKED]@gitlab.com/fleetline/api.git",
        "remote: https://oauth2:[MASKED]@gitlab.com/fleetline/api.git",
        "fatal: could not read from https://gitlab-ci-token:pre[MASKED]@gitlab.com/fleetline/api.git",
        "postgres://app:[MASKED]@db.fleetline.net:5432/orders",
        "git push https://x-access-token:***@github.com/fleetline/api.git HEAD:main",
        "Cloning https://ci-bot:****@git.fleetline.net/infra.git (Jenkins)",
        "DOCKER_PASSWORD=[MASKED]",
        "DB_PASSWORD=***",
        "Authorization: Bearer ***",
        "docker login -u ci -p [MASKED] registry.gitlab.com",
        "curl -u deploy:*** https://api.fleetline.net/hooks",
        "Das Passwort ist [MASKED].",
    ],
)
def test_a_value_masked_by_a_ci_runner_stays_quiet(text: str) -> None:
    assert found(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "git clone https://gitlab-ci-token:Kq7wRz2mXp9L@gitlab.com/fleetline/api.git",
        "postgres://app:Kq7wRz2mXp9L@db.fleetline.net:5432/orders",
        "git push https://ci-bot:Kq7wRz2mXp9L@github.com/fleetline/api.git HEAD:main",
    ],
)
def test_a_real_password_in_the_same_url_fires(text: str) -> None:
    assert [v for _, v in found(text) if "Kq7wRz2mXp9L" in v], text


# --- 4. user@host as an ssh destination in configuration ------------------------------------------

SSH_CONFIG = """\
Host app1
  HostName app1.internal.fleetline.net
  User deploy
  ProxyJump deploy@bastion.fleetline.net
Host db1
  ProxyJump=ops@bastion.fleetline.net,ops@jump2.fleetline.net
Host legacy
  ProxyCommand ssh -W %h:%p deploy@gw.fleetline.net
"""


def test_ssh_config_destinations_are_logins() -> None:
    assert found(SSH_CONFIG) == []


def test_an_address_in_a_comment_of_the_same_file_still_fires() -> None:
    text = SSH_CONFIG + "# maintained by jana.novak@fleetline.net, ask before changing\n"
    assert found(text) == [("email", "jana.novak@fleetline.net")]


@pytest.mark.parametrize(
    "text",
    [
        "ansible_ssh_common_args='-o ProxyJump=deploy@bastion.fleetline.net'",
        "ssh -o ProxyJump=deploy@bastion.fleetline.net app1",
        "git remote add origin deploy@git.fleetline.net:platform/api.git",
        '[remote "origin"]\n\turl = deploy@git.fleetline.net:platform/api.git',
        "DEST=deploy@web1.fleetline.net:/srv/app",
        "rsync -az dist/ deploy@web1.fleetline.net:~/releases/",
        "rsync deploy@backup.fleetline.net::nightly ./restore",
        "ssh $SSH_OPTS deploy@web1.fleetline.net 'systemctl restart app'",
        'scp "$ARTIFACT" deploy@web1.fleetline.net:/tmp/',
        # at the very start of the text or of its line
        "ProxyJump deploy@bastion.fleetline.net",
        "Host app1\nProxyJump deploy@bastion.fleetline.net",
        "s3://deploy@backups.fleetline.net/nightly",
    ],
)
def test_other_config_forms_of_a_remote_login_stay_quiet(text: str) -> None:
    assert found(text) == [], text


@pytest.mark.parametrize(
    "text",
    [
        "# ProxyJump questions: jana.novak@fleetline.net",
        "Write to jana.novak@fleetline.net: /status is down",
        "Kontakt für den Jump-Host: jana.novak@fleetline.net",
        "Envoyez la clé à jana.novak@fleetline.net avant ssh.",
    ],
)
def test_an_address_near_those_words_still_fires(text: str) -> None:
    assert found(text) == [("email", "jana.novak@fleetline.net")], text
