#!/usr/bin/env python3
"""A warm pytest for ``make mutate``: one server per module forks a fresh pytest for each mutant.

Each mutant's test run would otherwise spend most of its time starting Python and importing pytest,
Hypothesis, pydantic and the like (about 1.5 s of CPU against well under a second of tests). The
server imports those once; for each mutant it forks, and the child runs ``pytest.main`` in the
scratch copy. Nothing of ``proctor`` that imports the mutated module (nor any test module) is ever
imported in the server, so the child imports the mutated source from disk as a fresh process would.

The server also imports the rooms of ``proctor`` below the mutated module's (ROOMS, lowest first:
``proctor.protocol`` and ``proctor.api`` for a grader), each only when a forked trial import shows it
does not import the mutated module (MODULE); the child then finds them imported, unmutated.

With a SELECT_FILE (written by hack/mutate.py from one coverage run of the unmutated tests), the
child runs only the tests that executed the function the mutant changed: it finds the changed lines
by comparing the mutated file with the original, and takes the innermost function whose body holds
them all. A test that never runs that function behaves exactly as on the original, so it cannot
kill the mutant. When those tests all pass, a second child runs every test of their files before
the mutant counts as a survivor: a module- or class-scoped fixture runs in its file's first test
only, and the tests after it see its result. (A subset of a file's tests, in pytest's order, passes
on the original: ``make test`` runs the suite on xdist workers, each an arbitrary subset.) A change
outside every function body (module level, a class body, a signature or decorator, all run at
import), in a function also run at import, or in a function no test ran keeps the whole list.

    mutate_worker.py serve SOCKET PRELOAD_FILE TIMEOUT MODULE ROOMS [SELECT_FILE]  # hack/mutate.py starts it
    mutate_worker.py run SOCKET -- PYTEST_ARGS...        # the test command cosmic-ray runs

``run`` exits with pytest's exit status. When the server cannot be reached it runs pytest itself
(a slow run, never a wrong verdict): a harness failure must not count as a killed mutant.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import json
import os
import select
import signal
import socket
import sys


def _preload(names: list[str]) -> None:
    for name in names:
        with contextlib.suppress(Exception):
            importlib.import_module(name)


def _select(args: list[str], selection: dict | None) -> tuple[list[str], list[str]]:
    """``args`` with its test files replaced by those that ran the changed function, when known, and
    the node ids of the tests that ran it (empty: run the files whole)."""
    if not selection:
        return args, []
    try:
        with open(selection["mutated"]) as f:
            mutated = f.read().splitlines()
    except OSError:
        return args, []
    original: list[str] = selection["original"]
    changed: list[int] = []
    matcher = difflib.SequenceMatcher(a=original, b=mutated, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag != "equal":
            changed.extend(range(i1 + 1, max(i2, i1 + 1) + 1))  # 1-based; an insertion names the line after
    if not changed:
        return args, []
    first, last = min(changed), max(changed)
    best: list | None = None
    for span in selection["spans"]:  # innermost: the smallest span holding every change
        start, end = span[0], span[1]
        if start <= first and last <= end and (best is None or end - start < best[1] - best[0]):
            best = span
    if best is None or not best[2]:
        return args, []
    files = set(selection["files"])
    return [a for a in args if a not in files] + best[2], best[3]


class _Only:
    """A pytest plugin that keeps only the given tests, in pytest's order."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = set(ids)

    def pytest_collection_modifyitems(self, config: object, items: list) -> None:
        items[:] = [item for item in items if item.nodeid in self.ids]


def _child(
    conn: socket.socket, server: socket.socket, args: list[str], timeout: float, only: list[str]
) -> None:
    server.close()
    conn.close()
    signal.alarm(max(1, int(timeout)))  # a mutant that loops dies on its own
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        import pytest

        # the plugins (Hypothesis, anyio, pytest-timeout) were imported before pytest could rewrite
        # their asserts; pytest's warning about it would be an error (filterwarnings = error)
        args = ["-W", "ignore::pytest.PytestAssertRewriteWarning", *args]
        code = int(pytest.main(args, plugins=[_Only(only)] if only else []))
    except BaseException:
        code = 3
    os._exit(code)


def _preload_rooms(module: str, rooms: list[str]) -> None:
    """Import each room (lowest first) that a trial import in a forked child shows does not import
    ``module``; stop at the first that does (the rooms above it import it too)."""
    for room in rooms:
        pid = os.fork()
        if pid == 0:
            code = 2
            with contextlib.suppress(BaseException):
                importlib.import_module(room)
                code = 1 if module in sys.modules else 0
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            return
        importlib.import_module(room)


def _serve(
    path: str, preload_file: str, timeout: float, module: str, rooms: str, select_file: str = ""
) -> None:
    with open(preload_file) as f:
        _preload(json.load(f))
    _preload_rooms(module, [r for r in rooms.split(",") if r])
    selection = None
    if select_file:
        with open(select_file) as f:
            selection = json.load(f)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    server.bind(path)
    server.listen(4)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        conn, _ = server.accept()
        with conn:
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            try:
                request = json.loads(data)
            except ValueError:
                continue
            os.chdir(request["cwd"])
            args, only = _select(request["args"], selection)
            code = _fork(conn, server, request["cwd"], args, timeout, only)
            if code in (0, 5) and only:  # none of them failed (or none was found): their files whole
                code = _fork(conn, server, request["cwd"], args, timeout, [])
            with contextlib.suppress(OSError):
                conn.sendall(f"{code}\n".encode())


def _fork(
    conn: socket.socket, server: socket.socket, cwd: str, args: list[str], timeout: float, only: list[str]
) -> int:
    pid = os.fork()
    if pid == 0:
        os.chdir(cwd)
        sys.path.insert(0, cwd)  # as ``python -m pytest`` does
        _child(conn, server, args, timeout, only)
    return _wait(pid, conn)


def _wait(pid: int, conn: socket.socket) -> int:
    """The child's exit status; the child is killed when the client goes away (cosmic-ray's timeout)."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1
        readable, _, _ = select.select([conn], [], [], 0.05)
        if readable and not conn.recv(1, socket.MSG_PEEK):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 1


def _run(path: str, args: list[str]) -> int:
    try:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        client.sendall(json.dumps({"cwd": os.getcwd(), "args": args}).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = client.recv(64)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            reply += chunk
        return int(reply)
    except (OSError, ValueError):
        os.execv(sys.executable, [sys.executable, "-m", "pytest", *args])


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) in (6, 7):
        _serve(argv[1], argv[2], float(argv[3]), *argv[4:])
        return 0
    if argv[:1] == ["run"] and len(argv) >= 3 and argv[2] == "--":
        return _run(argv[1], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
