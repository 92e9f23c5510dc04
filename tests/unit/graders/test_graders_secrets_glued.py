"""A token glued to a word by "-" or "_" ("prod-AKIA...", "AWS_KEY_AKIA...") is still found.

The scan used to skip a token whose first character followed a letter, a digit, "_" or "-", so that
a key shape inside a longer key is not a second finding; an identifier in front of a key then hid
it. A glued token is now a weak finding: found, but losing to any finding it overlaps.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.graders import scan


def found(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in scan(text)]


GLUABLE = [
    ("aws-access-key", "AKIAIOSFODNN7EXAMPLX"),
    ("github-token", "ghp_aBcdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ("stripe-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("google-api-key", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"),
    ("slack-token", "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx"),
]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(GLUABLE),
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=12
    ),
    st.sampled_from(["-", "_", "--", "-_"]),
)
def test_a_token_glued_to_a_word_by_a_hyphen_or_underscore_is_found(
    kind_token: tuple[str, str], word: str, glue: str
) -> None:
    # "prod-AKIA...", "AWS_KEY_AKIA...": an identifier in front hides nothing
    kind, token = kind_token
    text = f"Set it to {word}{glue}{token} today."
    assert (kind, token) in found(text), text


def test_a_key_shape_inside_a_longer_key_is_not_a_second_finding() -> None:
    # the Google-key shape after "-" inside an OpenAI key is part of that key
    key = "sk-proj-Xy7aB9cD2eF4gH6iJ8kL0mN1oP3qR5sT7uV9wX1-AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
    assert found(f"key {key}.") == [("openai-api-key", key)]


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("key x-AKIA IOSF ODNN 7EXA MPLX.", "AKIA IOSF ODNN 7EXA MPLX"),
        (
            "key x_ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789.",
            "ghp_aBcdEf GhIjKl MnOpQr StUvWx Yz0123 456789",
        ),
    ],
)
def test_a_token_in_pieces_glued_to_a_word_is_found(text: str, token: str) -> None:
    [(_, span)] = found(text)
    assert span == token
