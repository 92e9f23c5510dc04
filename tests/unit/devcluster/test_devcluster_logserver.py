"""The node stand-in's kubelet endpoint: log options and tails, decoded as the kubelet does."""

from __future__ import annotations

import io

import pytest

from proctor.devcluster.logserver import LogError, LogOptions, tail_offset


def test_log_options_as_the_kubelet_decodes_them() -> None:
    o = LogOptions.parse({"follow": ["true"], "tailLines": ["3"], "limitBytes": ["10"], "previous": ["0"]})
    assert o == LogOptions(follow=True, previous=False, tail_lines=3, limit_bytes=10)
    assert LogOptions.parse({"tail": ["all"]}).tail_lines is None
    assert LogOptions.parse({"tail": ["5"]}).tail_lines == 5
    assert LogOptions.parse({"timestamps": ["false"]}) == LogOptions()
    for bad, code in (
        ({"follow": ["maybe"]}, 400),
        ({"tailLines": ["-1"]}, 422),
        ({"sinceSeconds": ["5"]}, 400),
    ):
        with pytest.raises(LogError) as e:
            LogOptions.parse(bad)
        assert e.value.code == code


@pytest.mark.parametrize("data", [b"a\nb\nc\n", b"a\nb\nc", b"", b"\n", b"x", b"a\n\nb\n", b"line\n" * 40000])
def test_tail_offset_keeps_the_last_lines(data: bytes) -> None:
    lines = data.splitlines(keepends=True)
    for n in (0, 1, 2, 3, 10, 50000):
        assert data[tail_offset(io.BytesIO(data), n) :] == (b"".join(lines[-n:]) if n else b"")
