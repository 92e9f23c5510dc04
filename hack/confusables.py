#!/usr/bin/env python3
"""Rewrite ``operator/proctor/graders/confusables.json`` from confusable-homoglyphs' data.

The canonical form (``proctor.graders._canon``) maps look-alike letters through that table; it is
written out so no process reads the whole UTS #39 file at start-up. Run after upgrading
confusable-homoglyphs (``tests/unit/graders/test_graders_confusables_table.py`` fails until then)::

    .venv/bin/python hack/confusables.py
"""

from __future__ import annotations

import json
from importlib import resources

from proctor.graders._canon import CONFUSABLES_FILE, derive_confusables


def main() -> None:
    path = resources.files("proctor.graders").joinpath(CONFUSABLES_FILE)
    with resources.as_file(path) as file:
        table = json.dumps(derive_confusables(), ensure_ascii=False, sort_keys=True, indent=0)
        file.write_text(table + "\n", encoding="utf-8")
    print(f"wrote {file}")


if __name__ == "__main__":
    main()
