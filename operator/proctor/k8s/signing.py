"""What makes a judge's results trustworthy: a per-run key, and HMAC-SHA256 signatures over them.

The operator holds one master key (``PROCTOR_SIGNING_KEY``: the chart puts it in a Secret of the
operator's namespace and hands it over as an environment variable; it is never logged). For each
run it derives the run's key, ``HMAC(master, run UID)``, and writes it into a Secret owned by the
run, which only the judge container receives (``secretKeyRef``): the candidate sidecars of the same
pod do not, and no ServiceAccount Proctor creates may read Secrets. The runner signs each results
ConfigMap and its shard's report with it; the operator derives the same key from the run's UID and
verifies. A key is worth one run: a report signed for run A does not verify for run B, nor a
report of shard 1 for shard 2, nor one of attempt 1 for attempt 2.

Why HMAC and not signatures (Ed25519): both need a secret in the judge pod, so they trust the same
things; HMAC lets the operator verify with what it already holds (the master key and the run UID)
instead of storing every run's public key somewhere a forger could not rewrite, and needs no
crypto library below the operator. What it does not give is verification by a third party: only
the operator (the holder of the master key) can check a result.

Pure functions of bytes and plain data, except :func:`master_key`, which reads the environment or
the local key file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

#: The operator's master key (any text of at least :data:`MIN_KEY_CHARS` characters).
MASTER_KEY_ENV: Final = "PROCTOR_SIGNING_KEY"
#: Without it, outside a cluster: a key kept in this file (made 0600 on first use).
MASTER_KEY_FILE_ENV: Final = "PROCTOR_SIGNING_KEY_FILE"
DEFAULT_KEY_FILE: Final = Path("~/.cache/proctor/signing-key")
MIN_KEY_CHARS: Final = 32

#: What a run's key Secret holds (``data[RUN_KEY_KEY]``), and the judge container's variable for it.
RUN_KEY_KEY: Final = "key"
RUN_KEY_ENV: Final = "PROCTOR_RUN_KEY"

#: The annotation a signed object carries, and its scheme prefix (a new scheme gets a new prefix).
SIGNATURE_ANNOTATION: Final = "proctor.dev/signature"
SCHEME: Final = "hmac-sha256-v1"

#: What a signature is over, so one kind of object can never stand in for another.
RESULTS: Final = "results"
REPORT: Final = "report"


class SigningKeyError(ValueError):
    """The master key is missing or too short (the message says where it was looked for)."""


def master_key(env: Mapping[str, str] | None = None) -> bytes:
    """The operator's master key: ``PROCTOR_SIGNING_KEY``; else the key file
    (``PROCTOR_SIGNING_KEY_FILE``, default ``~/.cache/proctor/signing-key``), made with a fresh
    random key the first time, so a restarted local operator still verifies its running runs."""
    e = dict(os.environ if env is None else env)
    if text := e.get(MASTER_KEY_ENV):
        if len(text) < MIN_KEY_CHARS:
            raise SigningKeyError(f"{MASTER_KEY_ENV} must hold at least {MIN_KEY_CHARS} characters")
        return text.encode()
    path = Path(e.get(MASTER_KEY_FILE_ENV) or DEFAULT_KEY_FILE).expanduser()
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = secrets.token_hex(32)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
        try:
            os.link(tmp, path)  # another operator made one meanwhile: keep theirs
        except FileExistsError:
            text = path.read_text().strip()
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as e:
        raise SigningKeyError(f"{MASTER_KEY_ENV} is not set and {path} cannot be read: {e}") from None
    if len(text) < MIN_KEY_CHARS:
        raise SigningKeyError(f"{path} must hold at least {MIN_KEY_CHARS} characters")
    return text.encode()


def run_key(master: bytes, run_uid: str) -> bytes:
    """The key of one run (32 bytes), derived from the master key and the run's UID."""
    if not run_uid:
        raise ValueError("a run key needs the run's UID")
    return hmac.new(master, b"proctor.dev/run-key/v1\x00" + run_uid.encode(), hashlib.sha256).digest()


def encode_key(key: bytes) -> str:
    """A run key as the Secret and the judge's environment carry it (hex)."""
    return key.hex()


def decode_key(text: str) -> bytes:
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError(f"{RUN_KEY_ENV} is not a hex key") from None
    if len(key) != 32:
        raise ValueError(f"{RUN_KEY_ENV} must be 32 bytes (64 hex digits), not {len(key)}")
    return key


def canonical(payload: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: sorted keys, no spaces, UTF-8 (the same data, the same bytes)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(key: bytes, purpose: str, payload: Mapping[str, Any]) -> str:
    """``hmac-sha256-v1:<hex>`` over ``purpose`` and the canonical payload."""
    mac = hmac.new(key, purpose.encode() + b"\x00" + canonical(payload), hashlib.sha256).hexdigest()
    return f"{SCHEME}:{mac}"


def verify(key: bytes, purpose: str, payload: Mapping[str, Any], signature: str | None) -> bool:
    """Whether ``signature`` is :func:`sign`'s for this key, purpose and payload (constant time)."""
    if not signature or not signature.startswith(SCHEME + ":"):
        return False
    return hmac.compare_digest(sign(key, purpose, payload), signature)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def results_payload(
    run_uid: str, shard: str, attempt: int, part: str, blob_sha256: str, chunk_sha256: str
) -> dict[str, Any]:
    """What a results ConfigMap's signature covers: whose run, shard and attempt, which part, the
    digest of the whole shard's results and of this part's bytes."""
    return {
        "run": run_uid,
        "shard": shard,
        "attempt": attempt,
        "part": part,
        "sha256": blob_sha256,
        "chunk": chunk_sha256,
    }


def report_payload(run_uid: str, shard: str, attempt: int, report: Mapping[str, Any]) -> dict[str, Any]:
    """What a shard report's signature covers: whose run, shard and attempt, and the report itself
    (phase, counts, provenance, the results ConfigMaps and their digest)."""
    return {"run": run_uid, "shard": shard, "attempt": attempt, "report": dict(report)}
