"""The scan's libraries load without their network modules where that is safe, and never leave a
stand-in behind.

detect-secrets' plugins import ``requests``, and python-stdnum's util ``ssl``, only for online
checks the scan never asks; a grading process loads them with a stand-in
(:func:`proctor.graders._offline.without`). Each test runs in a fresh interpreter: the rules are
built, and the libraries imported, once per process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from proctor.testing.cluster import scaled


def _run(code: str) -> str:
    argv = [sys.executable, "-c", textwrap.dedent(code)]
    out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=scaled(300))
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_grading_process_finds_secrets_without_loading_requests_and_can_still_import_it() -> None:
    out = _run(
        """
        import sys
        from proctor.graders import scan
        body = "a1B2c3D4e5F6g7H8i9J0" + "k1L2m3N4o5P6q7R8"
        found = scan("the key is AKIAIOSFODNN7EXAMPLQ and the token ghp_" + body)
        print(sorted(f.kind for f in found), "requests" in sys.modules)
        import requests  # a later import gets the real module, not the stand-in
        print(hasattr(requests, "Session"))
        """
    )
    assert out.splitlines() == ["['aws-access-key', 'github-token'] False", "True"]


def test_with_other_threads_running_the_plugins_load_the_real_requests() -> None:
    # another thread could import requests while the stand-in is in place: then it is not used
    out = _run(
        """
        import sys, threading
        stop = threading.Event()
        t = threading.Thread(target=stop.wait)
        t.start()
        from proctor.graders import scan
        found = scan("the key is AKIAIOSFODNN7EXAMPLQ")
        stop.set()
        t.join()
        print(sorted(f.kind for f in found), hasattr(sys.modules.get("requests"), "Session"))
        """
    )
    assert out == "['aws-access-key'] True"


def test_requests_loaded_before_stays_the_one_the_plugins_use() -> None:
    out = _run(
        """
        import requests
        from proctor.graders import scan
        found = scan("the key is AKIAIOSFODNN7EXAMPLQ")
        import detect_secrets.plugins.base as base
        print(sorted(f.kind for f in found), base.requests is requests)
        """
    )
    assert out == "['aws-access-key'] True"


def test_a_grading_process_finds_national_ids_without_loading_ssl_and_can_still_import_it() -> None:
    out = _run(
        """
        import sys
        from proctor.graders import scan
        found = scan("IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-8751")
        print(sorted(f.kind for f in found), "ssl" in sys.modules, "_ssl" in sys.modules)
        import ssl  # a later import (an HTTPS client's) gets the real module
        print(hasattr(ssl, "create_default_context"))
        """
    )
    assert out.splitlines() == ["['iban', 'national-id'] False False", "True"]


def test_ssl_loaded_before_stays_the_one_stdnum_uses() -> None:
    out = _run(
        """
        import ssl
        from proctor.graders import scan
        found = scan("IBAN DE89 3704 0044 0532 0130 00")
        import stdnum.util
        print(sorted(f.kind for f in found), stdnum.util.ssl is ssl)
        """
    )
    assert out == "['iban'] True"
