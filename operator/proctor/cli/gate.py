"""``proctor gate``: the rollout gate for pipelines without the admission webhook.

It creates an EvalRun against a candidate (a live ``--endpoint``, a candidate ``--image`` run as a
native sidecar of the judge Job, or recorded ``--responses``), follows it (phase and shard progress
on stderr, one line per change), prints the verdict as ``proctor grade`` does (:mod:`.render`: text,
or JSON with the same keys where the run's status has them) and exits with the verdict code:
PASS 0, FAIL 1, ERROR 2, WARN 3.

Exit 2 (ERROR: nothing conclusive was measured) also covers everything that is not the agent's
fault: bad flags, missing CRDs or references, API errors, a run nobody picked up, and the timeout.
On a timeout the run is left in place and named, so a person can look at it.

The run is built by :func:`proctor.k8s.objects.evalrun` (the builder the gate's reconciler uses
too) and every API call goes through :class:`proctor.k8s.kube.Kube`.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import secrets
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from proctor.api import (
    API_VERSION,
    GROUP,
    TERMINAL_PHASES,
    VERSION,
    ConditionStatus,
    ConditionType,
    EvalRun,
    GatePolicy,
    ManifestError,
    VerdictName,
    parse_evalrun,
    parse_policy,
    parse_responses,
)
from proctor.cli import render
from proctor.k8s import objects
from proctor.k8s.kube import PLURALS, TRANSPORT_ERRORS, Kube, KubeConfigError, KubeError, current_namespace

PROG: Final = "proctor gate"
EXIT_ERROR: Final = VerdictName.ERROR.exit_code
EXIT_INTERRUPTED: Final = 130
#: After this long with no phase, say once that the run has not been picked up (and keep waiting).
PICKUP_GRACE_SECONDS: Final = 30.0
#: The longest one watch request stays open before the gate looks at the clock again.
WATCH_SLICE_SECONDS: Final = 30
#: ConfigMaps hold at most 1 MiB; leave room for metadata.
MAX_RESPONSES_BYTES: Final = 1_000_000
CRDS_HINT: Final = "the Proctor CRDs are not installed in this cluster (kubectl apply --server-side -f crds/)"
CREATED_BY: Final = {objects.LABEL_CREATED_BY: "proctor-gate"}
RBAC_HINT: Final = "the gate needs the Role in docs/recipes/gate-rbac.yaml"


class GateError(Exception):
    """The gate could not get a verdict; the message says why and what to do (exit 2)."""


class _Transient(Exception):
    """An API error worth retrying while the gate waits (5xx, 429, the server unreachable)."""


class _NotDone(Exception):
    """The run did not reach a verdict in time (the last status seen is kept)."""

    def __init__(self, obj: Mapping[str, Any]) -> None:
        super().__init__("timeout")
        self.obj = obj


# --- the command line ------------------------------------------------------------------------------


def register(p: argparse.ArgumentParser) -> None:
    """The options of ``proctor gate``."""
    p.description = (
        "Create an EvalRun against a candidate (--endpoint, --image or --responses), show its progress on "
        "stderr, print the verdict and exit with its code: PASS 0, FAIL 1, ERROR 2 (also: bad input, API "
        "errors, a run not picked up, the timeout), WARN 3."
    )
    p.add_argument(
        "-n", "--namespace", help="namespace of the run (default: the current context's, or default)"
    )
    p.add_argument("--caseset", required=True, metavar="NAME", help="the CaseSet to examine on")
    p.add_argument("--profile", metavar="NAME", help="the EvalProfile (default: the policy's, if any)")
    p.add_argument(
        "--policy",
        metavar="NAME",
        help="a GatePolicy: its tiers and regression margin decide the verdict; its profile, shards and "
        "candidate settings (protocol, port, path) are the defaults here",
    )
    target = p.add_argument_group("target (exactly one)")
    one = target.add_mutually_exclusive_group(required=True)
    one.add_argument("--endpoint", metavar="URL", help="a live agent, e.g. http://agent-canary.team:8080/ask")
    one.add_argument(
        "--image", metavar="IMAGE", help="a candidate image, run as a native sidecar of the judge Job"
    )
    one.add_argument(
        "--responses", type=Path, metavar="FILE", help="recorded answers (YAML or JSON: case id -> answer)"
    )
    how = p.add_argument_group("how to talk to the agent (--endpoint, --image)")
    how.add_argument(
        "--protocol", choices=["openai-chat", "http-json"], help="default: the policy's, or openai-chat"
    )
    how.add_argument("--model", help="openai-chat: the model name sent in each request")
    how.add_argument(
        "--request-template",
        metavar="T",
        help="http-json: the request body, e.g. '{\"question\": {{input}}}'",
    )
    how.add_argument("--response-path", metavar="P", help="http-json: dotted path to the answer, e.g. answer")
    how.add_argument(
        "--api-key-secret",
        metavar="SECRET:KEY",
        help="--endpoint: a Secret key holding a bearer token for the agent (read by the judge Job only)",
    )
    how.add_argument(
        "--port", type=int, help="--image: the port the candidate serves on (default: the policy's)"
    )
    how.add_argument("--path", help="--image: the HTTP path (default: the policy's, or /v1/chat/completions)")
    run = p.add_argument_group("the run")
    run.add_argument("--name", help="the EvalRun's name (default: gate-<caseset>-<random>)")
    run.add_argument(
        "--shards", type=int, help="judge Jobs the cases are split between (default: the policy's, or 1)"
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=1800,
        metavar="SECONDS",
        help="how long to wait for the verdict (default 1800); then exit 2 and leave the run in place",
    )
    run.add_argument("--format", choices=["text", "json"], default="text", help="how the verdict is printed")
    run.add_argument(
        "--wait",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="wait for the verdict (default); --no-wait creates the run, prints its name and exits 0",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    """Run ``proctor gate`` with parsed arguments; the return value is the exit code."""
    return Gate(args).run()


# --- the gate ----------------------------------------------------------------------------------------


@dataclass
class _Progress:
    """What was last said about the run, so each change is said once."""

    started: float
    last: str = ""
    pickup_noted: bool = False
    api_noted: bool = False


def _generated_name(caseset: str) -> str:
    suffix = secrets.token_hex(3)
    return f"gate-{caseset[: 63 - len('gate--') - len(suffix)].rstrip('-.')}-{suffix}"


def _secret_ref(text: str) -> dict[str, str]:
    name, sep, key = text.partition(":")
    if not sep or not name or not key:
        raise GateError(f"--api-key-secret {text!r}: expected SECRET:KEY, e.g. agent-token:token")
    return {"name": name, "key": key}


class Gate:
    """One ``proctor gate`` invocation."""

    def __init__(
        self,
        args: argparse.Namespace,
        *,
        kube: Kube | None = None,
        out: IO[str] | None = None,
        err: IO[str] | None = None,
    ) -> None:
        self.args = args
        self._kube = kube
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.ns = ""
        self.name = ""
        self.target_text = ""
        self.spec: dict[str, Any] = {}
        self.answers: dict[str, str] | None = None

    # -- output

    def say(self, text: str) -> None:
        print(f"{PROG}: {text}", file=self.err, flush=True)

    @property
    def kube(self) -> Kube:
        assert self._kube is not None
        return self._kube

    @property
    def where(self) -> str:
        return f"EvalRun {self.ns}/{self.name}"

    @property
    def inspect(self) -> str:
        return f"kubectl -n {self.ns} describe evalrun {self.name}"

    # -- the steps

    def run(self) -> int:
        logging.getLogger("urllib3").setLevel(logging.ERROR)  # no retry warnings on the pipeline's log
        try:
            self._check_flags()
            self._connect()
            self._check_api()
            policy = self._policy()
            self._plan(policy)
            self._create()
        except GateError as e:
            self.say(f"error: {e}")
            self.say("nothing was measured (exit 2)")
            return EXIT_ERROR
        except KeyboardInterrupt:
            self.say("interrupted")
            return EXIT_INTERRUPTED
        if not self.args.wait:
            if self.args.format == "json":
                print(
                    json.dumps({"run": {"namespace": self.ns, "name": self.name}, "created": True}),
                    file=self.out,
                )
            else:
                print(f"{self.ns}/{self.name}", file=self.out)
            return 0
        try:
            obj = self._wait()
        except _NotDone as e:
            return self._timed_out(e.obj)
        except GateError as e:
            return self._failed_wait(str(e))
        except KeyboardInterrupt:
            self.say(
                f"interrupted: {self.where} goes on in the cluster (kubectl -n {self.ns} delete evalrun "
                f"{self.name} stops it)"
            )
            return EXIT_INTERRUPTED
        return self._report(obj)

    def _check_flags(self) -> None:
        a = self.args
        kind = "endpoint" if a.endpoint else "image" if a.image else "responses"
        agent_flags = {
            "--protocol": a.protocol,
            "--model": a.model,
            "--request-template": a.request_template,
            "--response-path": a.response_path,
        }
        if kind == "responses":
            given = [f for f, v in agent_flags.items() if v is not None]
            if given:
                raise GateError(f"{', '.join(given)} apply to --endpoint and --image, not --responses")
        if kind != "image":
            given = [f for f, v in {"--port": a.port, "--path": a.path}.items() if v is not None]
            if given:
                raise GateError(f"{', '.join(given)} apply to --image only")
        if kind != "endpoint" and a.api_key_secret is not None:
            raise GateError("--api-key-secret applies to --endpoint only")
        if a.timeout <= 0:
            raise GateError("--timeout must be a positive number of seconds")
        if a.shards is not None and not 1 <= a.shards <= 64:
            raise GateError("--shards must be between 1 and 64")

    def _connect(self) -> None:
        if self._kube is None:
            try:
                self._kube = Kube()
            except KubeConfigError as e:
                raise GateError(
                    f"no Kubernetes configuration ({e}): set KUBECONFIG, or run in a pod with a "
                    "service account"
                ) from None
        self.ns = self.args.namespace or current_namespace()

    def _unreachable(self, e: BaseException) -> str:
        return f"cannot reach the Kubernetes API server at {self.kube.host}: {_short(e)}"

    def _check_api(self) -> None:
        """The API server answers and serves proctor.dev/v1alpha1 (discovery: readable by anyone)."""
        try:
            names = self.kube.served_resources()
        except KubeError as e:
            if e.status == 404:
                raise GateError(CRDS_HINT) from None
            raise GateError(_api_problem(f"discovery of {GROUP}/{VERSION}", e)) from None
        except TRANSPORT_ERRORS as e:
            raise GateError(self._unreachable(e)) from None
        missing = sorted(set(PLURALS.values()) - names)
        if missing:
            raise GateError(f"{CRDS_HINT}: {', '.join(missing)} are missing")

    def _get(self, kind: str, name: str) -> dict[str, Any] | None:
        try:
            return self.kube.get_or_none(kind, self.ns, name)
        except KubeError as e:
            raise GateError(_kube_problem(e, f"get {PLURALS[kind]}", self.ns)) from None
        except TRANSPORT_ERRORS as e:
            raise GateError(self._unreachable(e)) from None

    def _require(self, kind: str, name: str, flag: str) -> dict[str, Any]:
        obj = self._get(kind, name)
        if obj is None:
            raise GateError(f"{kind} {name} not found in namespace {self.ns} ({flag})")
        ready = next(
            (
                c
                for c in (obj.get("status") or {}).get("conditions") or []
                if c.get("type") == ConditionType.READY
            ),
            None,
        )
        if ready is not None and ready.get("status") == ConditionStatus.FALSE:
            raise GateError(
                f"{kind} {self.ns}/{name} is not Ready ({ready.get('reason')}: {ready.get('message')}); "
                "a run on it cannot be measured: fix it first"
            )
        return obj

    def _policy(self) -> GatePolicy | None:
        if not self.args.policy:
            return None
        raw = self._require("GatePolicy", self.args.policy, "--policy")
        try:
            return parse_policy(raw)
        except ManifestError as e:
            raise GateError(f"GatePolicy {self.ns}/{self.args.policy}: {'; '.join(e.problems)}") from None

    def _agent(self, policy: GatePolicy | None) -> dict[str, Any]:
        """Protocol settings: the flags, over the policy's candidate settings of the same protocol."""
        a = self.args
        out: dict[str, Any] = {}
        cand = policy.spec.candidate if policy else None
        if cand is not None and a.protocol in (None, cand.protocol.value):
            out = {
                "protocol": cand.protocol.value,
                "model": cand.model,
                "requestTemplate": cand.request_template,
                "responsePath": cand.response_path,
            }
        if a.protocol:
            out["protocol"] = a.protocol
        for key, value in (
            ("model", a.model),
            ("requestTemplate", a.request_template),
            ("responsePath", a.response_path),
        ):
            if value is not None:
                out[key] = value
        return {k: v for k, v in out.items() if v is not None}

    def _target(self, policy: GatePolicy | None) -> dict[str, Any]:
        """The run's target (and, for recorded answers, the answers), from the flags and the policy."""
        a = self.args
        if a.endpoint:
            endpoint: dict[str, Any] = {"url": a.endpoint, **self._agent(policy)}
            if a.api_key_secret:
                endpoint["apiKeySecretRef"] = _secret_ref(a.api_key_secret)
            self.target_text = f"endpoint {a.endpoint}"
            return {"endpoint": endpoint}
        if a.image:
            cand = policy.spec.candidate if policy else None
            port = a.port or (cand.port if cand else None)
            if port is None:
                raise GateError(
                    "--image needs the port the candidate serves on: --port N, or --policy with a candidate"
                )
            candidate: dict[str, Any] = {
                "port": port,
                "path": a.path or (cand.path if cand else "/v1/chat/completions"),
                "container": "agent",
                **self._agent(policy),
            }
            if cand is not None:
                candidate["readinessTimeoutSeconds"] = cand.readiness_timeout_seconds
            pod = {
                "metadata": {"labels": {"app.kubernetes.io/name": "proctor-candidate"}},
                "spec": {
                    "containers": [{"name": "agent", "image": a.image, "ports": [{"containerPort": port}]}]
                },
            }
            self.target_text = f"candidate image {a.image} (port {port})"
            return {"podTemplate": pod, "candidate": candidate}
        path: Path = a.responses
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise GateError(f"{path}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise GateError(f"{path}: not UTF-8 text") from None
        try:
            self.answers = parse_responses(text, where=str(path))
        except ManifestError as e:
            raise GateError("; ".join(e.problems)) from None
        size = len(json.dumps(self.answers, ensure_ascii=False).encode())
        if size > MAX_RESPONSES_BYTES:
            raise GateError(
                f"{path}: the answers are {size} bytes, more than a ConfigMap holds (1 MiB): "
                "split the case set, or serve the answers from an --endpoint"
            )
        self.target_text = f"recorded answers {path}"
        return {"responses": {"configMapRef": {"name": "", "key": objects.ANSWERS_KEY}}}

    def _plan(self, policy: GatePolicy | None) -> None:
        """Check the references and the flags, and settle the run's spec (its name comes later)."""
        a = self.args
        self._require("CaseSet", a.caseset, "--caseset")
        profile = a.profile or (policy.spec.profile_ref.name if policy and policy.spec.profile_ref else None)
        if profile:
            self._require(
                "EvalProfile", profile, "--profile" if a.profile else f"the profile of GatePolicy {a.policy}"
            )
        self.spec = {
            "caseSetRef": {"name": a.caseset},
            "target": self._target(policy),
            "shards": a.shards or (policy.spec.shards if policy else 1),
            "timeoutSeconds": int(min(86400, max(60, math.ceil(a.timeout)))),
        }
        if profile:
            self.spec["profileRef"] = {"name": profile}
        if policy is not None:
            self.spec["policyRef"] = {"name": a.policy}
        self.name = a.name or _generated_name(a.caseset)
        self._body()  # an invalid spec is reported before anything is created

    def _body(self) -> dict[str, Any]:
        """The run named ``self.name``, built by the operator's own EvalRun builder."""
        spec = json.loads(json.dumps(self.spec))
        if self.answers is not None:
            spec["target"]["responses"]["configMapRef"]["name"] = objects.responses_configmap_name(self.name)
        draft = {"apiVersion": API_VERSION, "kind": "EvalRun", "metadata": {"name": self.name}, "spec": spec}
        try:
            run = parse_evalrun(draft)
        except ManifestError as e:
            raise GateError("the EvalRun would be invalid: " + "; ".join(e.problems)) from None
        return objects.evalrun(
            self.name,
            run.spec,
            namespace=self.ns,
            labels=CREATED_BY,
            annotations={objects.GATE_TARGET_ANNOTATION: self.target_text[:1024]},
        )

    def _create(self) -> None:
        """Create the run (and, for recorded answers, its ConfigMap first: the runner reads it at run
        time, and the operator may start the run at once). A generated name that is taken is
        generated again."""
        generated = not self.args.name
        for _ in range(5 if generated else 1):
            if self.answers is not None and not self._create_configmap(quiet_conflict=generated):
                self.name = _generated_name(self.args.caseset)
                continue
            created = self._create_run(self._body(), quiet_conflict=generated)
            if created is None:
                if self.answers is not None:
                    self._delete_configmap()
                self.name = _generated_name(self.args.caseset)
                continue
            if self.answers is not None:
                self._own_configmap(created)
            self.say(
                f"created {self.where} (CaseSet {self.args.caseset}, {self.target_text}); {self.inspect}"
            )
            return
        raise GateError("could not find a free name for the run; give one with --name")

    @property
    def _configmap(self) -> str:
        return objects.responses_configmap_name(self.name)

    def _create_configmap(self, *, quiet_conflict: bool) -> bool:
        assert self.answers is not None
        cm = objects.responses_configmap(self.ns, self.name, self.answers, labels=CREATED_BY)
        try:
            created = self.kube.create_configmap(cm)
        except KubeError as e:
            raise GateError(_api_problem(f"create ConfigMap {self.ns}/{self._configmap}", e)) from None
        except TRANSPORT_ERRORS as e:
            raise GateError(self._unreachable(e)) from None
        if created is None and quiet_conflict:
            return False
        if created is None:
            raise GateError(f"ConfigMap {self.ns}/{self._configmap} already exists: choose another --name")
        return True

    def _delete_configmap(self) -> None:
        try:
            self.kube.delete_configmap(self.ns, self._configmap)
        except KubeError as e:
            self._warn_not_deleted(str(e))
        except TRANSPORT_ERRORS as e:
            self._warn_not_deleted(self._unreachable(e))

    def _warn_not_deleted(self, why: str) -> None:
        self.say(f"warning: could not delete ConfigMap {self.ns}/{self._configmap}: {why}")

    def _create_run(self, body: dict[str, Any], *, quiet_conflict: bool) -> dict[str, Any] | None:
        try:
            created = self.kube.create_custom("EvalRun", self.ns, body)
        except TRANSPORT_ERRORS as e:
            raise GateError(self._unreachable(e)) from None
        except KubeError as e:
            if self.answers is not None:
                self._delete_configmap()
            if e.status == 404:
                raise GateError(CRDS_HINT) from None
            raise GateError(_api_problem(f"create {self.where}", e)) from None
        if created is None and not quiet_conflict:
            if self.answers is not None:
                self._delete_configmap()
            raise GateError(f"{self.where} already exists (a run's spec is immutable): choose another --name")
        return created

    def _own_configmap(self, run: Mapping[str, Any]) -> None:
        """Hand the answers' ConfigMap to the run, so it is garbage-collected with it."""
        ref = objects.RunRef(self.ns, self.name, run["metadata"]["uid"])
        patch = {"metadata": {"ownerReferences": [objects.owner_reference(ref, controller=False)]}}
        try:
            self.kube.patch_configmap(self.ns, self._configmap, patch)
        except KubeError as e:
            self._warn_not_owned(_api_problem("patch", e))
        except TRANSPORT_ERRORS as e:
            self._warn_not_owned(self._unreachable(e))

    def _warn_not_owned(self, why: str) -> None:
        self.say(
            f"warning: ConfigMap {self.ns}/{self._configmap} could not be given to the run ({why}); it "
            f"will not be deleted with it: kubectl -n {self.ns} delete configmap {self._configmap}"
        )

    # -- waiting

    def _wait(self) -> dict[str, Any]:
        """Follow the run until it reaches a terminal phase (watch, or polling where watch is denied)."""
        clock = time.monotonic
        progress = _Progress(started=clock())
        deadline = progress.started + self.args.timeout
        use_watch = True
        last: dict[str, Any] = {"metadata": {"namespace": self.ns, "name": self.name}}
        while True:
            try:
                found = self._get_run()
            except _Transient as e:
                # an API server restarting, overloaded or briefly unreachable: keep trying until the deadline
                if not progress.api_noted:
                    progress.api_noted = True
                    self.say(f"note: {e}; retrying until the timeout")
                if clock() >= deadline:
                    raise _NotDone(last) from None
                time.sleep(2)
                continue
            if found is None:
                raise GateError(f"{self.where} was deleted before it reached a verdict")
            obj = last = found
            if self._seen(obj, progress):
                return obj
            remaining = deadline - clock()
            if remaining <= 0:
                raise _NotDone(obj)
            if not use_watch:
                time.sleep(min(2.0, remaining))
                continue
            slice_ = max(1, min(WATCH_SLICE_SECONDS, math.ceil(remaining)))
            if not progress.pickup_noted:
                slice_ = max(1, min(slice_, math.ceil(progress.started + PICKUP_GRACE_SECONDS - clock())))
            events = self.kube.watch_custom(
                "EvalRun",
                self.ns,
                self.name,
                resource_version=obj["metadata"].get("resourceVersion"),
                timeout=slice_,
            )
            try:
                for event in self._events(events):
                    if event.get("type") == "DELETED":
                        raise GateError(f"{self.where} was deleted before it reached a verdict")
                    seen = event.get("object")
                    if isinstance(seen, dict) and self._seen(seen, progress):
                        return seen
                    if clock() >= deadline:
                        break
            except KubeError as e:
                if e.status in (401, 403):
                    self.say("note: cannot watch EvalRuns here; polling every 2s instead")
                    use_watch = False
                elif e.status != 410:  # 410 Gone: the version is too old; get the object again
                    time.sleep(1)
            finally:
                events.close()  # ends the watch request at once

    def _get_run(self) -> dict[str, Any] | None:
        """The run, or None if it is gone; _Transient for errors worth retrying."""
        try:
            return self.kube.get_or_none("EvalRun", self.ns, self.name)
        except KubeError as e:
            if e.status is not None and (e.status == 429 or e.status >= 500):
                raise _Transient(str(e)) from None
            raise GateError(_kube_problem(e, "get evalruns", self.ns)) from None
        except TRANSPORT_ERRORS as e:
            raise _Transient(self._unreachable(e)) from None

    def _events(self, stream: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The watch's events; a dropped connection ends the stream (the caller gets the object again)."""
        try:
            yield from stream
        except TRANSPORT_ERRORS:
            time.sleep(1)

    def _seen(self, obj: Mapping[str, Any], progress: _Progress) -> bool:
        """Report what changed; True when the run is over."""
        st = obj.get("status") or {}
        phase = st.get("phase")
        elapsed = time.monotonic() - progress.started
        if not phase and not progress.pickup_noted and elapsed >= PICKUP_GRACE_SECONDS:
            progress.pickup_noted = True
            self.say(
                f"[{elapsed:.0f}s] {self.where} has not been picked up yet: is the operator running, and "
                f"watching namespace {self.ns}? (still waiting)"
            )
        line = _progress_line(obj)
        if line and line != progress.last:
            progress.last = line
            self.say(f"[{elapsed:.0f}s] {line}")
        return finished(st)

    # -- the outcome

    def _timed_out(self, obj: Mapping[str, Any]) -> int:
        st = obj.get("status") or {}
        phase = st.get("phase")
        t = f"{self.args.timeout:g}s"
        if not phase:
            reason = "NotPickedUp"
            message = (
                f"{self.where} was not picked up within {t}: is the operator running, and watching namespace "
                f"{self.ns}? Nothing was measured; the run is left in place ({self.inspect})"
            )
        else:
            reason = "Timeout"
            message = (
                f"nothing conclusive was measured within the timeout ({t}): {self.where} is still {phase}"
                f"{_shards_text(obj)}{': ' + st['message'] if st.get('message') else ''}; "
                f"it is left in place ({self.inspect})"
            )
        return self._error_outcome(st.get("phase"), reason, message)

    def _failed_wait(self, message: str) -> int:
        return self._error_outcome(None, "GateError", message)

    def _error_outcome(self, phase: str | None, reason: str, message: str) -> int:
        """ERROR without a verdict from the run: nothing conclusive was measured."""
        if self.args.format == "json":
            summary = render.Summary(
                verdict=VerdictName.ERROR.value, exit_code=EXIT_ERROR, reason=reason, message=message
            )
            run = {"namespace": self.ns, "name": self.name}
            print(
                render.render_json(render.as_json(summary, extra={"run": run, "phase": phase})), file=self.out
            )
        else:
            line = render.verdict_line(
                VerdictName.ERROR.value, EXIT_ERROR, reason, message, colour=self.out.isatty()
            )
            print(line, file=self.out)
        return EXIT_ERROR

    def _report(self, obj: Mapping[str, Any]) -> int:
        try:
            run = parse_evalrun(obj)
        except ManifestError as e:
            phase = (obj.get("status") or {}).get("phase")
            return self._error_outcome(phase, "GateError", f"{self.where}: {'; '.join(e.problems)}"[:1024])
        summary = render.from_run(run)
        if self.args.format == "json":
            st = run.status
            assert st is not None
            doc = render.as_json(
                summary,
                extra={
                    "run": {"namespace": run.metadata.namespace, "name": run.metadata.name},
                    "phase": st.phase.value if st.phase else None,
                    "caseSet": run.spec.case_set_ref.name,
                    "target": self._target_text(run),
                    "cases": summary.cases,
                },
                tail={
                    "failureCount": st.failure_count or 0,
                    "incident": summary.incident,
                    "results": list(summary.results),
                },
            )
            print(render.render_json(doc), file=self.out)
        else:
            title = (
                f"{PROG}: EvalRun {run.metadata.namespace}/{run.metadata.name}, "
                f"CaseSet {run.spec.case_set_ref.name} ({summary.cases} cases)"
            )
            if target := self._target_text(run):
                title += f", {target}"
            print(render.render_text(summary, title=title, colour=self.out.isatty()), file=self.out)
        return summary.exit_code

    def _target_text(self, run: EvalRun) -> str:
        return self.target_text or run.metadata.annotations.get(objects.GATE_TARGET_ANNOTATION, "")


# --- reading a run's progress (pure) -----------------------------------------------------------------


def finished(status: Mapping[str, Any]) -> bool:
    """Whether the run is over: its ``Finished`` condition (what ``kubectl wait --for=condition=Finished``
    waits for), or, from an operator that did not write one, a terminal phase with its verdict."""
    cond = next((c for c in status.get("conditions") or [] if c.get("type") == ConditionType.FINISHED), None)
    if cond is not None:
        return bool(cond.get("status") == ConditionStatus.TRUE)
    phase = status.get("phase")
    return bool(phase in TERMINAL_PHASES and (status.get("verdict") or phase == "Failed"))


def _shards_text(obj: Mapping[str, Any]) -> str:
    st = obj.get("status") or {}
    total = int((obj.get("spec") or {}).get("shards") or len(st.get("shards") or []) or 1)
    shards = st.get("shards") or []
    done = sum(1 for s in shards if s.get("phase") == "Succeeded")
    return f" ({done}/{total} shard{'s' if total != 1 else ''} done)"


def _progress_line(obj: Mapping[str, Any]) -> str:
    """One line about where the run is: phase, shards done, retries, the status message."""
    st = obj.get("status") or {}
    phase = st.get("phase")
    if not phase:
        return ""
    if phase in TERMINAL_PHASES:
        verdict = st.get("verdict")
        return f"{phase}: {verdict}" if verdict else phase
    parts = [f"{phase}{_shards_text(obj)}"]
    retrying = [s for s in st.get("shards") or [] if s.get("retryAt")]
    for s in retrying[:3]:
        parts.append(f"shard {s.get('name')} attempt {s.get('attempts')} failed, retry at {s.get('retryAt')}")
    if st.get("message"):
        parts.append(str(st["message"]))
    head, tail = parts[0], "; ".join(parts[1:])
    return f"{head}: {tail}" if tail else head


# --- errors in words ---------------------------------------------------------------------------------


def _short(e: BaseException) -> str:
    reason = getattr(e, "reason", None)
    return str(reason or e).splitlines()[0][:300]


def _api_problem(what: str, e: KubeError) -> str:
    """An API error in words (the server's own message; never a credential)."""
    if e.status == 401:
        return f"{what}: the API server did not accept the credentials (401 Unauthorized)"
    if e.status == 403:
        return (
            f"{what}: forbidden: {e.detail} ({RBAC_HINT}: "
            "create/get/watch EvalRuns; get CaseSets, EvalProfiles, GatePolicies; "
            "create/patch/delete ConfigMaps)"
        )
    return f"{what}: {e.status} {e.detail}".strip()


def _kube_problem(e: KubeError, what: str, ns: str) -> str:
    if e.status == 403:
        return f"{what} in {ns}: forbidden ({e}); {RBAC_HINT}"
    if e.status == 401:
        return f"{what}: the API server did not accept the credentials (401 Unauthorized)"
    return str(e)
