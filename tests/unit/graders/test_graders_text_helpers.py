"""The text helpers every reason and grounding check leans on: quotes, name lists, numbers, URLs."""

from __future__ import annotations

import pytest

from proctor.graders._text import QUOTE_LIMIT, find_urls, join_names, normalize_url, number_values, quote


def test_a_quote_is_one_line_in_double_quotes_with_inner_quotes_made_single() -> None:
    assert quote('  the band is\n\t"ELEVATED"  ') == "\"the band is 'ELEVATED'\""


def test_a_quote_at_exactly_the_limit_is_kept_whole_and_one_over_is_cut_with_an_ellipsis() -> None:
    assert QUOTE_LIMIT == 80
    assert quote("a" * 80) == '"' + "a" * 80 + '"'
    assert quote("a" * 81) == '"' + "a" * 79 + "\u2026" + '"'
    assert quote("abcdef", limit=4) == '"abc\u2026"'


def test_a_cut_quote_does_not_end_in_a_space_before_the_ellipsis() -> None:
    assert quote("a" * 78 + " bbbb") == '"' + "a" * 78 + "\u2026" + '"'


@pytest.mark.parametrize(
    ("names", "joined"),
    [
        ([], ""),
        (["a"], "a"),
        (["a", "b"], "a and b"),
        (["a", "b", "c"], "a, b and c"),
        (("x", "y", "z", "w"), "x, y, z and w"),
    ],
)
def test_names_are_joined_as_a_sentence(names: list[str], joined: str) -> None:
    assert join_names(iter(names)) == joined


def test_numbers_are_read_as_people_write_them_and_compared_as_figures() -> None:
    assert number_values("12 items, 0.30 qt/hr, 1,200.5 kg, -4 C, 45%, 10mm, \u22127 below") == {
        12.0,
        0.3,
        1200.5,
        4.0,
        45.0,
        10.0,
        7.0,
    }
    assert number_values("0.30") == number_values("0.3")
    assert number_values("no figure here, only A320 and v2.4.1") == frozenset()


def test_a_url_with_a_scheme_is_found_with_its_offsets_and_without_trailing_punctuation() -> None:
    text = "Read https://docs.acme.io/amm/72-00. Then ftp://files.acme.io/x, done"
    assert find_urls(text) == [
        (5, 35, "https://docs.acme.io/amm/72-00"),
        (42, 63, "ftp://files.acme.io/x"),
    ]


def test_a_host_without_a_dot_is_not_a_url() -> None:
    assert find_urls("see http://localhost/status now") == []


def test_parentheses_are_trimmed_only_when_unmatched() -> None:
    assert find_urls("(see https://en.wikipedia.org/wiki/Foo_(bar))") == [
        (5, 44, "https://en.wikipedia.org/wiki/Foo_(bar)")
    ]
    assert find_urls("(https://a.io/x)") == [(1, 15, "https://a.io/x")]
    assert find_urls("https://a.io/x).,;:!?*_~'\"") == [(0, 14, "https://a.io/x")]
    # only a closing parenthesis is trimmed, and only when there are more of them than opening ones
    assert find_urls("see https://a.io/a)b&") == [(4, 21, "https://a.io/a)b&")]
    assert find_urls("see https://a.io/((x)") == [(4, 21, "https://a.io/((x)")]


def test_a_url_without_a_scheme_is_found() -> None:
    assert find_urls("Go to example.com/path or docs.acme.io today.") == [
        (6, 22, "example.com/path"),
        (26, 38, "docs.acme.io"),
    ]
    assert find_urls("the config is in config.py") == []


def test_a_url_is_reported_once_when_a_bare_url_lies_inside_it() -> None:
    assert find_urls("visit www.acme.org today") == [(6, 18, "www.acme.org")]
    text = "see https://x.org/r?u=example.com/b and www.y.net or docs.acme.io"
    assert find_urls(text) == [
        (4, 35, "https://x.org/r?u=example.com/b"),
        (40, 49, "www.y.net"),
        (53, 65, "docs.acme.io"),
    ]
    # and a bare URL after a URL with a scheme is one of its own
    assert find_urls("https://x.org/b then example.com/a") == [
        (0, 15, "https://x.org/b"),
        (21, 34, "example.com/a"),
    ]
    # a bare URL before the first URL with a scheme is still a URL of its own
    assert find_urls("example.com/a then https://x.org/b") == [
        (0, 13, "example.com/a"),
        (19, 34, "https://x.org/b"),
    ]


def test_urls_compare_without_scheme_www_host_case_fragment_or_trailing_slash() -> None:
    assert normalize_url("HTTPS://WWW.Example.COM/Path/#frag") == "example.com/Path"
    assert normalize_url("ftp://www.a.org/x#y#z") == "a.org/x"
    assert normalize_url("Example.com") == "example.com"


@pytest.mark.parametrize("text", ["line one\nline two", "a\tb", "first\r\nsecond"])
def test_a_quote_of_text_with_a_line_break_or_tab_but_no_double_space_is_one_line(text: str) -> None:
    quoted = quote(text)
    assert "\n" not in quoted and "\t" not in quoted and "\r" not in quoted
    assert quoted == '"' + " ".join(text.split()) + '"'


def test_a_closing_parenthesis_inside_a_url_path_is_kept() -> None:
    # only a trailing unmatched ")" is trimmed (the one closing a parenthesis around the URL)
    assert [u for _, _, u in find_urls("see https://example.com/a)b for it")] == ["https://example.com/a)b"]
    assert [u for _, _, u in find_urls("(see https://example.com/a)b)")] == ["https://example.com/a)b"]


def test_an_escaped_reserved_character_stays_escaped_in_either_case() -> None:
    # %2F is a slash inside a path segment, not a separator: never decoded; its hex case does not matter
    assert normalize_url("https://x.com/a%2fb") == normalize_url("https://x.com/a%2Fb") == "x.com/a%2Fb"
    assert normalize_url("https://x.com/a%2Fb") != normalize_url("https://x.com/a/b")
