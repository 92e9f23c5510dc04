"""What makes a judge's report believable: its digest, said by a pod the run's Job made.

A shard's judge writes its results and report into ConfigMaps of the run's namespace, where the
tenant may write ConfigMaps too, so what those ConfigMaps say proves nothing by itself. The judge
container ends by writing the report's digest into its termination message
(:data:`TERMINATION_LOG`); the kubelet copies it into the pod's status, which no tenant can write.
The operator believes a report only when a pod controlled by the shard's Job, whose spec is the
one the Job's template makes, vouches for its digest (:mod:`proctor.reconcile.results`), and a
report's results only when their bytes are the digest the report names.

No key exists anywhere, so none can be read, mounted or guessed: a pod the tenant creates (with
the judge's ServiceAccount, its token, the Job's labels and an owner reference to the Job) either
is the Job's template (then it runs the real judge on the real cases) or is not believed.

Pure functions of bytes and plain data.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, Final

#: Where the judge container writes what it vouches for (the kubelet's default path, set
#: explicitly in the Job so a pod that moved it is not the Job's template).
TERMINATION_LOG: Final = "/dev/termination-log"
#: Stand-in only (:mod:`proctor.devcluster.node`): the host file that takes the place of
#: :data:`TERMINATION_LOG` for a container run as a local process.
NODE_TERMINATION_LOG_ENV: Final = "PROCTOR_NODE_TERMINATION_LOG"
#: The first line of the judge's termination message: this prefix and the report's digest.
DIGEST_PREFIX: Final = "proctor.dev/report sha256:"
_DIGEST = re.compile(r"[0-9a-f]{64}")


def canonical(payload: Mapping[str, Any]) -> bytes:
    """The bytes a digest covers: sorted keys, no spaces, UTF-8 (the same data, the same bytes)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def report_payload(run_uid: str, shard: str, attempt: int, report: Mapping[str, Any]) -> dict[str, Any]:
    """What a report's digest covers: whose run, shard and attempt, and the report itself (phase,
    counts, provenance, the results ConfigMaps and their digest), so a report of one shard or
    attempt never stands for another."""
    return {"run": run_uid, "shard": shard, "attempt": attempt, "report": dict(report)}


def report_digest(run_uid: str, shard: str, attempt: int, report: Mapping[str, Any]) -> str:
    return sha256(canonical(report_payload(run_uid, shard, attempt, report)))


def termination_message(digest: str, note: str = "") -> str:
    """The judge's termination message: the digest on the first line, then what a person reads
    (the last line is what a failed attempt's status quotes)."""
    return f"{DIGEST_PREFIX}{digest}\n{note}".rstrip("\n")[:4096]


def vouched(message: str | None) -> str | None:
    """The report digest a termination message vouches for (None: it vouches for none)."""
    first = (message or "").split("\n", 1)[0].strip()
    if not first.startswith(DIGEST_PREFIX):
        return None
    digest = first[len(DIGEST_PREFIX) :]
    return digest if _DIGEST.fullmatch(digest) else None
