#!/usr/bin/env python3
"""A warm pytest for ``make mutate``: one server per module forks a fresh pytest for each mutant.

Each mutant's test run would otherwise spend most of its time starting Python and importing pytest,
Hypothesis, pydantic and the like (about 1.5 s of CPU against well under a second of tests). The
server imports those once; for each mutant it forks, and the child runs ``pytest.main`` in the
scratch copy. Nothing of ``proctor`` (nor any test module) is ever imported in the server, so the
child imports the mutated source from disk exactly as a fresh process would.

    mutate_worker.py serve SOCKET PRELOAD_FILE TIMEOUT   # hack/mutate.py starts it
    mutate_worker.py run SOCKET -- PYTEST_ARGS...        # the test command cosmic-ray runs

``run`` exits with pytest's exit status. When the server cannot be reached it runs pytest itself
(a slow run, never a wrong verdict): a harness failure must not count as a killed mutant.
"""

from __future__ import annotations

import contextlib
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


def _child(conn: socket.socket, server: socket.socket, args: list[str], timeout: float) -> None:
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
        code = int(pytest.main(["-W", "ignore::pytest.PytestAssertRewriteWarning", *args]))
    except BaseException:
        code = 3
    os._exit(code)


def _serve(path: str, preload_file: str, timeout: float) -> None:
    with open(preload_file) as f:
        _preload(json.load(f))
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
            pid = os.fork()
            if pid == 0:
                os.chdir(request["cwd"])
                sys.path.insert(0, request["cwd"])  # as ``python -m pytest`` does
                _child(conn, server, request["args"], timeout)
            code = _wait(pid, conn)
            with contextlib.suppress(OSError):
                conn.sendall(f"{code}\n".encode())


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
    if argv[:1] == ["serve"] and len(argv) == 4:
        _serve(argv[1], argv[2], float(argv[3]))
        return 0
    if argv[:1] == ["run"] and len(argv) >= 3 and argv[2] == "--":
        return _run(argv[1], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
