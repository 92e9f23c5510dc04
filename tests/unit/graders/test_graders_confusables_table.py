"""The look-alike table the canonical form reads is what confusable-homoglyphs' data gives."""

from __future__ import annotations

import subprocess
import sys

from proctor.graders._canon import _confusables, canonical_text, derive_confusables


def test_the_written_table_is_the_derived_one() -> None:
    # fails after an upgrade of confusable-homoglyphs: run hack/confusables.py
    assert _confusables() == derive_confusables()


def test_look_alikes_map_through_the_table() -> None:
    assert canonical_text("N\u041eRMAL") == "NORMAL"  # Cyrillic O
    assert canonical_text("\u0440assword") == "password"  # Cyrillic er


def test_importing_the_graders_does_not_read_the_unicode_data_file() -> None:
    # the whole UTS #39 file cost every process a tenth of a second and 6 MiB at start-up
    probe = (
        "import sys, proctor.graders, proctor.graders._canon as c; "
        "c.canonical_text('n\\u00famero \\u0410'); "
        "print('confusable_homoglyphs' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
