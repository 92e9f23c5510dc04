"""A token spelt one character at a time is read for every vendor prefix, whatever stands around it.

``Nel ticket l'utente ha incollato il token carattere per carattere: h f _ k L x G ...`` gave no
finding when the prose around the run had a one-letter word of its own: Italian ``è`` (read ``e``)
before it or ``e`` after it glued itself to the token (``ehf_...``, ``...4e``), and a token whose
rule wants a boundary (Hugging Face's, Mailgun's, a prefix glued to a letter) was not read. A run
glued to a key's ``:`` or inside brackets was not read either, and a token with ``_`` or ``-`` in it
was read one character at a time only with blanks between (``h-f-_-k-...`` was not). The twins:
single letters in prose, words spaced for emphasis, initials, a spaced hex dump, rules and dot
leaders, a prefix spelt alone."""

from __future__ import annotations

import pytest

from proctor.graders import scan
from proctor.graders._scan import _spelt_findings

#: a valid token of each vendor prefix a token rule knows (built from pieces: no literal token)
TOKENS = {
    "huggingface-token": "hf_" + "kLxG7qWe3RtYu9IoPa2SdFg5HjKl8ZxCvBn4a",
    "github-token": "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "aws-access-key": "AKIA" + "Z7VRSQ5TJN2XK4PB",
    "slack-token": "xoxb-" + "123456789012-1234567890123-aB3dE5fG7hJ9kL1mN3pQ5rS7",
    "openai-api-key": "sk-proj-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7",
    "gitlab-token": "glpat-" + "aB3dE5fG7hJ9kL1mN3pQ",
    "stripe-key": "sk_live_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7",
    "google-api-key": "AIza" + "SyB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z",
    "anthropic-api-key": "sk-ant-api03-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE",
    "vault-token": "hvs." + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9",
    "mailgun-api-key": "key-" + "0123456789abcdef0123456789abcdef",
    "databricks-token": "dapi" + "0123456789abcdef0123456789abcdef",
    "npm-token": "npm_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b",
}
#: the prose around a run, with one-letter words of its own beside it, glued to a key, in brackets
CONTEXTS = [
    "Nel ticket l'utente ha incollato il token carattere per carattere: {}",
    "Il token è {} e poi è scaduto.",
    "Ho scritto a {} e o.",
    "He said I {} a lot.",
    "token:{} end",
    "[{}]",
    "{{{}}}",
    "<{}>",
    "El token y {} y nada más.",
]


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize(("kind", "token"), TOKENS.items(), ids=list(TOKENS))
def test_a_token_spelt_with_spaces_is_found_among_one_letter_words(
    context: str, kind: str, token: str
) -> None:
    text = context.format(" ".join(token))
    found = scan(text)
    assert kind in [f.kind for f in found], text
    assert token not in "".join(text[f.start : f.end] for f in found).replace(" ", "") or all(
        token[4:12] not in f.redacted for f in found
    )


@pytest.mark.parametrize("mark", ["-", ".", "_", "|", ","])
@pytest.mark.parametrize(("kind", "token"), TOKENS.items(), ids=list(TOKENS))
def test_a_token_spelt_with_marks_between_its_characters_is_found(mark: str, kind: str, token: str) -> None:
    text = f"the token is {mark.join(token)} and nothing else"
    assert kind in [f.kind for f in scan(text)], text


def test_the_examiners_item_is_found_and_redacted_where_written() -> None:
    spelt = " ".join(TOKENS["huggingface-token"])
    text = f"Nel ticket l'utente ha incollato il token carattere per carattere: {spelt} e poi basta."
    [f] = scan(text)
    assert (f.kind, f.detail) == ("huggingface-token", "Hugging Face token, spelt out")
    # the whole token is covered (a one-letter word after it that the token's alphabet takes may be too)
    assert text[f.start : f.end] in (spelt, spelt + " e")


@pytest.mark.parametrize(
    "text",
    [
        "Options: a b c d e f g h i j k l m n o p",
        "I am s o r r y, truly s o r r y about it, I r e a l l y am.",
        "Authors: J. R. R. T. A. B. C. D. E. F. G. H.",
        "initials: J K R M T L P Q W E R T Y",
        "bytes: de ad be ef 00 11 22 33 44 55 66 77 88 99 aa bb",
        "d e a d b e e f 0 0 1 1 2 2 3 3 4 4 5 5",
        "--------------------------------",
        "Chapter 1 ........................ 12",
        "|---|---|---|---|---|---|",
        "[0,1,0,1,1,0,1,0,0,1,1,1,0,1]",
        "a-b-c-d-e-f-g-h-i-j-k-l-m",
        "x_y_z_a_b_c_d_e_f_g_h_i_j",
        "S O S ! H E L P ! N O W ! P L E A S E",
        "A K I A is the prefix, not a key",
        "h f _ is the Hugging Face prefix: h f _ a b c d e f g h",
        "s k - a n t - is Anthropic's prefix: s k - a n t - a p i",
        "The grades were A B A C B A A B C A B A this term.",
        "e.g. i.e. a.k.a. n.b. p.s. q.v. c.f.",
        # a filler token spelt out is the placeholder it is written whole
        "Il token è " + " ".join("ghp_" + "X" * 36) + " e basta.",
    ],
)
def test_spaced_letters_that_spell_no_token_are_quiet(text: str) -> None:
    assert scan(text) == [], [(f.kind, text[f.start : f.end]) for f in scan(text)]


def test_a_spelt_reading_from_a_prefix_is_bounded() -> None:
    # a run of many prefixes, none a token: at most a few are read from, each to the run's end
    joined = "e" + "hf_" * 20_000
    assert list(_spelt_findings(joined)) == []
    text = " ".join("a" + "ghp_" * 3000)
    assert scan(text) == []


MAILGUN = TOKENS["mailgun-api-key"]  # exactly 32 hex after its prefix: a letter more breaks it
HF = TOKENS["huggingface-token"]  # 34 letters and digits or more: one fewer is still one


@pytest.mark.parametrize(
    ("joined", "found"),
    [
        # a one-letter word of the prose after the run glued itself to it: read without it ...
        ("e" + MAILGUN + "e", [MAILGUN]),
        ("e" + MAILGUN + "ea", [MAILGUN]),
        (MAILGUN + "e", [MAILGUN]),  # (from the run's start too)
        # ... but not without three letters, nor past a digit or a mark, which are the token's
        ("e" + MAILGUN + "eab", []),
        ("e" + MAILGUN + "5", []),
        ("e" + MAILGUN + "5e", []),
        ("e" + MAILGUN + "e5", []),
    ],
)
def test_a_spelt_run_is_read_without_its_last_one_or_two_letters(joined: str, found: list[str]) -> None:
    read = list(_spelt_findings(joined))
    assert [v for *_, v in read] == found
    # where it stands in the run
    assert [joined[s:e] for s, e, *_ in read] == found


def test_a_prefix_a_finding_covers_is_not_read_again_and_one_right_after_it_is() -> None:
    # the whole run's finding covers its own prefix: read once, not again without its last letter
    assert [v for *_, v in _spelt_findings(HF)] == [HF]
    # a prefix where the finding before it ends starts a token of its own
    aws = TOKENS["aws-access-key"]
    assert [v for *_, v in _spelt_findings(aws + MAILGUN)] == [aws, MAILGUN]


@pytest.mark.parametrize(("before", "read"), [(0, True), (3, True), (4, False)])
def test_at_most_four_prefixes_are_read_from(before: int, read: bool) -> None:
    # prefixes that start no token, glued before a real one: the fourth prefix tried is still read
    joined = "hf_ab" * before + HF
    assert ([v for *_, v in _spelt_findings(joined)] == [HF]) is read
