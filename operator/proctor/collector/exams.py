"""An exam case's judged scores, as the collector reads them to store a review of one.

The scores a reviewer agrees or disagrees with are the ones the run's verdict was decided from: the
believed attempt of each shard (the EvalRun's ``status.shards``, written by the operator only:
``phase`` Succeeded, ``reportDigest`` set, ``attempts``), and that attempt's full results, which the
operator's case server kept in its own namespace (:func:`~proctor.k8s.objects.detail_configmaps`,
only from the shard's authenticated judge pod; no tenant writes there). Their names are computed,
never listed: the collector needs ``get`` on EvalRuns and ``get`` on ConfigMaps in that one
namespace, nothing more. A part whose bytes are not the digest its annotation names, or that is not
labelled as the case server writes it, is not read (:class:`ExamUnreadable`), never guessed.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, cast

from kubernetes import client
from kubernetes.client.exceptions import ApiException

from proctor.api import GROUP, VERSION
from proctor.k8s.objects import (
    DETAIL_COMPONENT,
    LABEL_COMPONENT,
    LABEL_RUN_UID,
    PART_ANNOTATION,
    RESULTS_KEY,
    SHA256_ANNOTATION,
    configmap_blob,
    decode_results,
    detail_configmap_name,
)

#: Shards' decoded results kept (they never change once believed: keyed by run UID and attempt).
_CACHE_SHARDS: Final = 64
#: Parts of one shard's results read at most (the operator writes far fewer).
_MAX_PARTS: Final = 64


class ExamNotFound(LookupError):
    """No such EvalRun, case or dimension (404, with this message)."""


class ExamNotReady(Exception):
    """The EvalRun has no believed result for the case yet (409, with this message)."""


class ExamUnreadable(Exception):
    """The results cannot be read or are not what the case server wrote (503, with this message)."""


@dataclass(frozen=True, slots=True)
class CaseDimension:
    """One judged dimension of one exam case as the run's believed results hold it."""

    score: float | None
    threshold: float
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class ExamCase:
    """What a review of an exam case needs: the profile that judged it and its dimensions."""

    profile: str | None  # NS/NAME, None when the run named no EvalProfile
    dimensions: Mapping[str, CaseDimension]


class ExamReader(Protocol):
    """What reads exam cases (:class:`ExamResults` in a cluster)."""

    def case(self, namespace: str, name: str, case_id: str) -> ExamCase: ...


def _shard(name: object) -> tuple[int, int] | None:
    index, _, count = str(name).partition("/")
    return (int(index), int(count)) if index.isdigit() and count.isdigit() else None


class ExamResults:
    """Reads exam cases' judged scores from the API server, as the collector's own identity."""

    def __init__(self, api: client.ApiClient, store_namespace: str) -> None:
        self._custom = client.CustomObjectsApi(api)
        self._core = client.CoreV1Api(api)
        self.store_namespace = store_namespace
        self._cache: OrderedDict[tuple[str, int, int, int], dict[str, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def case(self, namespace: str, name: str, case_id: str) -> ExamCase:
        """Case ``case_id`` of EvalRun ``namespace/name`` (raises :class:`ExamNotFound`,
        :class:`ExamNotReady` or :class:`ExamUnreadable` with the cause)."""
        try:
            run = cast(
                dict[str, Any],
                self._custom.get_namespaced_custom_object(GROUP, VERSION, namespace, "evalruns", name),
            )
        except ApiException as e:
            if e.status == 404:
                raise ExamNotFound(f"no EvalRun {namespace}/{name}") from None
            raise ExamUnreadable(
                f"the collector cannot read EvalRun {namespace}/{name} ({e.status} {e.reason})"
            ) from None
        uid = str((run.get("metadata") or {}).get("uid") or "")
        profile_ref = ((run.get("spec") or {}).get("profileRef") or {}).get("name")
        status = run.get("status") or {}
        believed = [
            (shard, int(s.get("attempts") or 0))
            for s in status.get("shards") or ()
            if s.get("phase") == "Succeeded" and s.get("reportDigest") and (shard := _shard(s.get("name")))
        ]
        if not believed:
            phase = status.get("phase") or "Pending"
            raise ExamNotReady(f"EvalRun {namespace}/{name} has no believed results yet (phase {phase})")
        for (index, count), attempt in sorted(believed):
            records = self._shard_results(uid, index, count, attempt)
            rec = records.get(case_id)
            if rec is not None:
                dims = {
                    str(d["name"]): CaseDimension(
                        score=None if "skipped" in d else float(d["score"]),
                        threshold=float(d["threshold"]),
                        skipped=d.get("skipped"),
                    )
                    for d in rec.get("dimensions") or ()
                }
                return ExamCase(f"{namespace}/{profile_ref}" if profile_ref else None, dims)
        if len(believed) < int((run.get("spec") or {}).get("shards") or 1):
            raise ExamNotReady(
                f"EvalRun {namespace}/{name} has no believed result for case {case_id!r} yet "
                f"({len(believed)} of its shards reported)"
            )
        raise ExamNotFound(f"EvalRun {namespace}/{name} has no case {case_id!r}")

    def _shard_results(self, uid: str, index: int, count: int, attempt: int) -> dict[str, dict[str, Any]]:
        key = (uid, index, count, attempt)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        blob = self._blob(uid, index, count, attempt)
        try:
            records = {str(r["id"]): r for r in decode_results([blob])}
        except (OSError, ValueError, EOFError, KeyError, TypeError) as e:
            where = f"shard {index}/{count} attempt {attempt}"
            raise ExamUnreadable(f"the results of {where} cannot be decoded: {e}") from None
        with self._lock:
            self._cache[key] = records
            while len(self._cache) > _CACHE_SHARDS:
                self._cache.popitem(last=False)
        return records

    def _blob(self, uid: str, index: int, count: int, attempt: int) -> bytes:
        ns = self.store_namespace
        where = f"shard {index}/{count} attempt {attempt}"
        parts: list[bytes] = []
        total, digest = 1, None
        k = 0
        while k < total:
            cm_name = detail_configmap_name(uid, index, count, attempt, k)
            try:
                reply = self._core.read_namespaced_config_map(cm_name, ns, _preload_content=False)
                cm = json.loads(cast(Any, reply).data)
            except ApiException as e:
                if e.status == 404:
                    raise ExamNotReady(
                        f"the full results of {where} were not kept in {ns} (ConfigMap {cm_name} is missing)"
                    ) from None
                raise ExamUnreadable(
                    f"the collector cannot read ConfigMap {ns}/{cm_name} ({e.status} {e.reason})"
                ) from None
            meta = cm.get("metadata") or {}
            labels, notes = meta.get("labels") or {}, meta.get("annotations") or {}
            if labels.get(LABEL_RUN_UID) != uid or labels.get(LABEL_COMPONENT) != DETAIL_COMPONENT:
                raise ExamUnreadable(f"ConfigMap {ns}/{cm_name} is not the results the case server keeps")
            of = str(notes.get(PART_ANNOTATION, "")).partition("/")[2]
            if not of.isdigit() or not 1 <= int(of) <= _MAX_PARTS:
                raise ExamUnreadable(f"ConfigMap {ns}/{cm_name} does not say how many parts there are")
            if k == 0:
                total, digest = int(of), notes.get(SHA256_ANNOTATION)
            elif int(of) != total or notes.get(SHA256_ANNOTATION) != digest:
                raise ExamUnreadable(f"the parts of the results of {where} disagree")
            parts.append(configmap_blob(cm, RESULTS_KEY))
            k += 1
        blob = b"".join(parts)
        if hashlib.sha256(blob).hexdigest() != digest:
            raise ExamUnreadable(f"the results of {where} are not the bytes their digest names")
        return blob
