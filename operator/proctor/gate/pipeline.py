"""``proctor gate``: the rollout gate for pipelines without the admission webhook.

It creates an EvalRun against a candidate (a live ``--endpoint``, a candidate ``--image`` run as a
native sidecar of the judge Job, or recorded ``--responses``), follows it (phase and shard progress
on stderr, one line per change), prints the verdict in the style of ``proctor grade`` (text, or JSON
with the same keys where the run's status has them) and exits with the verdict code: PASS 0,
FAIL 1, ERROR 2, WARN 3.

Exit 2 (ERROR: nothing conclusive was measured) also covers everything that is not the agent's
fault: bad flags, missing CRDs or references, API errors, a run nobody picked up, and the timeout.
On a timeout the run is left in place and named, so a person can look at it.

The argument definitions live here (``add_arguments``) so ``proctor.cli`` stays small; the
Kubernetes client and the API models are imported only when the command runs, so the rest of the
``proctor`` command does not pay for them.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import secrets
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, cast

if TYPE_CHECKING:
    from proctor.api import GatePolicy
    from proctor.k8s.kube import Kube

PROG: Final = "proctor gate"
EXIT_ERROR: Final = 2
EXIT_INTERRUPTED: Final = 130
EXIT_CODES: Final = {"PASS": 0, "FAIL": 1, "ERROR": 2, "WARN": 3}
#: After this long with no phase, say once that the run has not been picked up (and keep waiting).
PICKUP_GRACE_SECONDS: Final = 30.0
#: The longest one watch request stays open before the gate looks at the clock again.
WATCH_SLICE_SECONDS: Final = 30
#: ConfigMaps hold at most 1 MiB; leave room for metadata.
MAX_RESPONSES_BYTES: Final = 1_000_000
SA_NAMESPACE_FILE: Final = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
CRDS_HINT: Final = "the Proctor CRDs are not installed in this cluster (kubectl apply --server-side -f crds/)"
RESPONSES_KEY: Final = "answers.json"
CREATED_BY: Final = {"app.kubernetes.io/created-by": "proctor-gate"}

_BOLD, _RED, _GREEN, _YELLOW, _RESET = "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"
_COLOURS: Final = {"PASS": _GREEN, "FAIL": _RED, "ERROR": _RED, "WARN": _YELLOW}


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


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``proctor gate`` (the caller sets ``func``)."""
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


def _configmap_name(run: str) -> str:
    return f"{run}-responses"


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
            body, answers = self._body(policy)
            self._create(body, answers)
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
            from kubernetes.config.config_exception import ConfigException

            from proctor.k8s.kube import Kube

            try:
                self._kube = Kube()
            except ConfigException as e:
                raise GateError(
                    f"no Kubernetes configuration ({e}): set KUBECONFIG, or run in a pod with a "
                    "service account"
                ) from None
        self.ns = self.args.namespace or _current_namespace()

    def _check_api(self) -> None:
        """The API server answers and serves proctor.dev/v1alpha1 (discovery: readable by anyone)."""
        from kubernetes.client.exceptions import ApiException

        from proctor.api import GROUP, VERSION

        try:
            resources = self._call(self.kube.custom.get_api_resources, GROUP, VERSION)
        except ApiException as e:
            if e.status == 404:
                raise GateError(CRDS_HINT) from None
            raise GateError(_api_problem(f"discovery of {GROUP}/{VERSION}", e)) from None
        names = {r.name for r in (resources.resources or [])}
        missing = sorted({"evalruns", "casesets", "evalprofiles", "gatepolicies"} - names)
        if missing:
            raise GateError(f"{CRDS_HINT}: {', '.join(missing)} are missing")

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """An API call; an unreachable server becomes a GateError that names it."""
        from urllib3.exceptions import HTTPError

        try:
            return fn(*args, **kwargs)
        except (HTTPError, OSError) as e:
            host = self.kube.api.configuration.host
            raise GateError(f"cannot reach the Kubernetes API server at {host}: {_short(e)}") from None

    def _get(self, kind: str, name: str) -> dict[str, Any] | None:
        from proctor.k8s.kube import KubeError

        try:
            obj: dict[str, Any] | None = self._call(self.kube.get_or_none, kind, self.ns, name)
        except KubeError as e:
            raise GateError(_kube_problem(e, f"get {kind_plural(kind)}", self.ns)) from None
        return obj

    def _require(self, kind: str, name: str, flag: str) -> dict[str, Any]:
        obj = self._get(kind, name)
        if obj is None:
            raise GateError(f"{kind} {name} not found in namespace {self.ns} ({flag})")
        ready = _condition(obj, "Ready")
        if ready is not None and ready.get("status") == "False":
            raise GateError(
                f"{kind} {self.ns}/{name} is not Ready ({ready.get('reason')}: {ready.get('message')}); "
                "a run on it cannot be measured: fix it first"
            )
        return obj

    def _policy(self) -> GatePolicy | None:
        if not self.args.policy:
            return None
        from proctor.api import ManifestError, parse_policy

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

    def _body(self, policy: GatePolicy | None) -> tuple[dict[str, Any], dict[str, str] | None]:
        from proctor.api import ManifestError, parse_evalrun, parse_responses

        a = self.args
        self._require("CaseSet", a.caseset, "--caseset")
        profile = a.profile or (policy.spec.profile_ref.name if policy and policy.spec.profile_ref else None)
        if profile:
            self._require(
                "EvalProfile", profile, "--profile" if a.profile else f"the profile of GatePolicy {a.policy}"
            )
        answers: dict[str, str] | None = None
        target: dict[str, Any]
        if a.endpoint:
            target = {"endpoint": {"url": a.endpoint, **self._agent(policy)}}
            if a.api_key_secret:
                target["endpoint"]["apiKeySecretRef"] = _secret_ref(a.api_key_secret)
            self.target_text = f"endpoint {a.endpoint}"
        elif a.image:
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
            target = {"podTemplate": pod, "candidate": candidate}
            self.target_text = f"candidate image {a.image} (port {port})"
        else:
            path: Path = a.responses
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as e:
                raise GateError(f"{path}: {e.strerror}") from None
            except UnicodeDecodeError:
                raise GateError(f"{path}: not UTF-8 text") from None
            try:
                answers = parse_responses(text, where=str(path))
            except ManifestError as e:
                raise GateError("; ".join(e.problems)) from None
            size = len(json.dumps(answers, ensure_ascii=False).encode())
            if size > MAX_RESPONSES_BYTES:
                raise GateError(
                    f"{path}: the answers are {size} bytes, more than a ConfigMap holds (1 MiB): "
                    "split the case set, or serve the answers from an --endpoint"
                )
            target = {"responses": {"configMapRef": {"name": "", "key": RESPONSES_KEY}}}
            self.target_text = f"recorded answers {path}"
        spec: dict[str, Any] = {
            "caseSetRef": {"name": a.caseset},
            "target": target,
            "shards": a.shards or (policy.spec.shards if policy else 1),
            "timeoutSeconds": int(min(86400, max(60, math.ceil(a.timeout)))),
        }
        if profile:
            spec["profileRef"] = {"name": profile}
        if policy is not None:
            spec["policyRef"] = {"name": a.policy}
        body: dict[str, Any] = {
            "apiVersion": "proctor.dev/v1alpha1",
            "kind": "EvalRun",
            "metadata": {
                "name": a.name or _generated_name(a.caseset),
                "namespace": self.ns,
                "labels": dict(CREATED_BY),
                "annotations": {"proctor.dev/gate-target": self.target_text[:1024]},
            },
            "spec": spec,
        }
        if answers is not None:
            target["responses"]["configMapRef"]["name"] = _configmap_name(body["metadata"]["name"])
        try:
            parse_evalrun(body)
        except ManifestError as e:
            raise GateError("the EvalRun would be invalid: " + "; ".join(e.problems)) from None
        return body, answers

    def _create(self, body: dict[str, Any], answers: dict[str, str] | None) -> None:
        """Create the run (and, for recorded answers, its ConfigMap first: the runner reads it at run
        time, and the operator may start the run at once). A generated name that is taken is
        generated again."""
        generated = not self.args.name
        for _ in range(5 if generated else 1):
            self.name = body["metadata"]["name"]
            if answers is not None:
                body["spec"]["target"]["responses"]["configMapRef"]["name"] = _configmap_name(self.name)
                if not self._create_configmap(answers, quiet_conflict=generated):
                    body["metadata"]["name"] = _generated_name(self.args.caseset)
                    continue
            created = self._create_run(body, quiet_conflict=generated)
            if created is None:
                if answers is not None:
                    self._delete_configmap()
                body["metadata"]["name"] = _generated_name(self.args.caseset)
                continue
            if answers is not None:
                self._own_configmap(created)
            self.say(
                f"created {self.where} (CaseSet {self.args.caseset}, {self.target_text}); {self.inspect}"
            )
            return
        raise GateError("could not find a free name for the run; give one with --name")

    def _create_configmap(self, answers: dict[str, str], *, quiet_conflict: bool) -> bool:
        from kubernetes.client.exceptions import ApiException

        from proctor.k8s.objects import LABEL_COMPONENT, LABEL_MANAGED_BY, LABEL_PART_OF, LABEL_RUN

        cm = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": _configmap_name(self.name),
                "namespace": self.ns,
                "labels": {
                    LABEL_MANAGED_BY: "proctor",
                    LABEL_PART_OF: "proctor",
                    LABEL_COMPONENT: "responses",
                    LABEL_RUN: self.name,
                    **CREATED_BY,
                },
            },
            "data": {RESPONSES_KEY: json.dumps(answers, ensure_ascii=False, indent=0)},
        }
        try:
            self._call(self.kube.core.create_namespaced_config_map, self.ns, cm, _preload_content=False)
        except ApiException as e:
            if e.status == 409 and quiet_conflict:
                return False
            if e.status == 409:
                raise GateError(
                    f"ConfigMap {self.ns}/{_configmap_name(self.name)} already exists: choose another --name"
                ) from None
            raise GateError(
                _api_problem(f"create ConfigMap {self.ns}/{_configmap_name(self.name)}", e)
            ) from None
        return True

    def _delete_configmap(self) -> None:
        from proctor.k8s.kube import KubeError

        try:
            self._call(self.kube.delete_configmap, self.ns, _configmap_name(self.name))
        except (KubeError, GateError) as e:
            self.say(f"warning: could not delete ConfigMap {self.ns}/{_configmap_name(self.name)}: {e}")

    def _create_run(self, body: dict[str, Any], *, quiet_conflict: bool) -> dict[str, Any] | None:
        from kubernetes.client.exceptions import ApiException

        from proctor.api import GROUP, VERSION

        try:
            reply = self._call(
                self.kube.custom.create_namespaced_custom_object,
                GROUP,
                VERSION,
                self.ns,
                "evalruns",
                body,
                _preload_content=False,
            )
        except ApiException as e:
            if e.status == 409 and quiet_conflict:
                return None
            if self.args.responses is not None:
                self._delete_configmap()
            if e.status == 409:
                raise GateError(
                    f"{self.where} already exists (a run's spec is immutable): choose another --name"
                ) from None
            if e.status == 404:
                raise GateError(CRDS_HINT) from None
            raise GateError(_api_problem(f"create {self.where}", e)) from None
        created: dict[str, Any] = json.loads(reply.data)
        return created

    def _own_configmap(self, run: Mapping[str, Any]) -> None:
        """Hand the answers' ConfigMap to the run, so it is garbage-collected with it."""
        from kubernetes.client.exceptions import ApiException

        from proctor.k8s.objects import RunRef, owner_reference

        ref = RunRef(self.ns, self.name, run["metadata"]["uid"])
        patch = {"metadata": {"ownerReferences": [owner_reference(ref, controller=False)]}}
        cm = _configmap_name(self.name)
        try:
            self._call(self.kube.core.patch_namespaced_config_map, cm, self.ns, patch, _preload_content=False)
        except (ApiException, GateError) as e:
            what = _api_problem("patch", e) if isinstance(e, ApiException) else str(e)
            self.say(
                f"warning: ConfigMap {self.ns}/{cm} could not be given to the run ({what}); it will not be "
                f"deleted with it: kubectl -n {self.ns} delete configmap {cm}"
            )

    # -- waiting

    def _wait(self) -> dict[str, Any]:
        """Follow the run until it reaches a terminal phase (watch, or polling where watch is denied)."""
        from kubernetes import watch
        from kubernetes.client.exceptions import ApiException

        from proctor.api import GROUP, VERSION

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
            w: Any = cast(Any, watch).Watch()
            try:
                stream: Iterator[dict[str, Any]] = w.stream(
                    self.kube.custom.list_namespaced_custom_object,
                    GROUP,
                    VERSION,
                    self.ns,
                    "evalruns",
                    field_selector=f"metadata.name={self.name}",
                    resource_version=obj["metadata"].get("resourceVersion"),
                    timeout_seconds=slice_,
                    _request_timeout=(10, slice_ + 15),
                )
                for event in self._events(stream):
                    if event.get("type") == "DELETED":
                        raise GateError(f"{self.where} was deleted before it reached a verdict")
                    seen = event.get("object")
                    if isinstance(seen, dict) and self._seen(seen, progress):
                        return seen
                    if clock() >= deadline:
                        break
            except ApiException as e:
                if e.status in (401, 403):
                    self.say("note: cannot watch EvalRuns here; polling every 2s instead")
                    use_watch = False
                elif e.status != 410:  # 410 Gone: the version is too old; get the object again
                    time.sleep(1)
            finally:
                w.stop()

    def _get_run(self) -> dict[str, Any] | None:
        """The run, or None if it is gone; _Transient for errors worth retrying."""
        from urllib3.exceptions import HTTPError

        from proctor.k8s.kube import KubeError

        try:
            obj: dict[str, Any] | None = self.kube.get_or_none("EvalRun", self.ns, self.name)
        except KubeError as e:
            if e.status is not None and (e.status == 429 or e.status >= 500):
                raise _Transient(str(e)) from None
            raise GateError(_kube_problem(e, "get evalruns", self.ns)) from None
        except (HTTPError, OSError) as e:
            host = self.kube.api.configuration.host
            raise _Transient(f"cannot reach the Kubernetes API server at {host}: {_short(e)}") from None
        return obj

    def _events(self, stream: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The watch's events; a dropped connection ends the stream (the caller gets the object again)."""
        from urllib3.exceptions import HTTPError

        try:
            yield from stream
        except (HTTPError, OSError):
            time.sleep(1)

    def _seen(self, obj: Mapping[str, Any], progress: _Progress) -> bool:
        """Report what changed; True when the run is over."""
        from proctor.api import TERMINAL_PHASES

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
        return bool(phase in TERMINAL_PHASES and (st.get("verdict") or phase == "Failed"))

    # -- the outcome

    def _print_json(self, doc: Mapping[str, Any]) -> None:
        print(json.dumps(doc, indent=2, ensure_ascii=False), file=self.out)

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
        return self._error_outcome(obj, reason, message)

    def _failed_wait(self, message: str) -> int:
        obj = {"metadata": {"namespace": self.ns, "name": self.name}}
        return self._error_outcome(obj, "GateError", message)

    def _error_outcome(self, obj: Mapping[str, Any], reason: str, message: str) -> int:
        st = obj.get("status") or {}
        if self.args.format == "json":
            self._print_json(
                {
                    "verdict": "ERROR",
                    "exitCode": EXIT_ERROR,
                    "reason": reason,
                    "message": message,
                    "run": {"namespace": self.ns, "name": self.name},
                    "phase": st.get("phase"),
                    "tiers": {},
                    "failures": [],
                }
            )
        else:
            colour = self.out.isatty()
            word = f"{_BOLD}{_RED}ERROR{_RESET}" if colour else "ERROR"
            print(f"{word} (exit 2) {reason}: {message}", file=self.out)
        return EXIT_ERROR

    def _report(self, obj: Mapping[str, Any]) -> int:
        doc = summary(obj, target=self.target_text)
        if self.args.format == "json":
            self._print_json(doc)
        else:
            print(render_text(doc, colour=self.out.isatty()), file=self.out)
        code: int = doc["exitCode"]
        return code


# --- reading a run's status (pure) ---------------------------------------------------------------------


def kind_plural(kind: str) -> str:
    return {"EvalRun": "evalruns", "CaseSet": "casesets", "EvalProfile": "evalprofiles"}.get(
        kind, "gatepolicies"
    )


def _condition(obj: Mapping[str, Any], type_: str) -> dict[str, Any] | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == type_:
            return c
    return None


def _shards_text(obj: Mapping[str, Any]) -> str:
    st = obj.get("status") or {}
    total = int((obj.get("spec") or {}).get("shards") or len(st.get("shards") or []) or 1)
    shards = st.get("shards") or []
    done = sum(1 for s in shards if s.get("phase") == "Succeeded")
    return f" ({done}/{total} shard{'s' if total != 1 else ''} done)"


def _progress_line(obj: Mapping[str, Any]) -> str:
    """One line about where the run is: phase, shards done, retries, the status message."""
    from proctor.api import TERMINAL_PHASES

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


def summary(obj: Mapping[str, Any], *, target: str = "") -> dict[str, Any]:
    """The verdict of a finished run, in the JSON shape of ``proctor grade --format json`` (where the
    status has it: the per-case lists are in the results ConfigMaps, ``results`` names them)."""
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    st = obj.get("status") or {}
    verdict = str(st.get("verdict") or "ERROR")
    code = st.get("exitCode")
    if st.get("phase") == "Failed":
        verdict, code = "ERROR", EXIT_ERROR
    if not isinstance(code, int) or code not in EXIT_CODES.values():
        code = EXIT_CODES.get(verdict, EXIT_ERROR)
    passed = _condition(obj, "Passed") or _condition(obj, "Evaluated") or {}
    tiers = {}
    for name in ("safety", "trust", "form"):
        t = (st.get("tiers") or {}).get(name)
        if t:
            keys = ("passed", "failed", "measured", "unmeasured", "total", "rate", "threshold")
            tiers[name] = {k: t.get(k) for k in keys}
            if t.get("baseline") is not None:
                tiers[name]["baseline"] = t["baseline"]
    return {
        "verdict": verdict,
        "exitCode": code,
        "reason": passed.get("reason"),
        "message": st.get("message") or "",
        "run": {"namespace": meta.get("namespace"), "name": meta.get("name")},
        "phase": st.get("phase"),
        "caseSet": (spec.get("caseSetRef") or {}).get("name"),
        "target": target or (meta.get("annotations") or {}).get("proctor.dev/gate-target", ""),
        "cases": sum(int(t.get("total") or 0) for t in tiers.values()),
        "tiers": tiers,
        "failures": [
            {k: f.get(k) for k in ("case", "tier", "assertion", "reason")}
            for f in st.get("firstFailures") or []
        ],
        "failureCount": st.get("failureCount") or 0,
        "incident": st.get("incident"),
        "results": [r.get("configMap") for r in st.get("results") or [] if r.get("configMap")],
    }


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1f}%"


def render_text(doc: Mapping[str, Any], *, colour: bool = False) -> str:
    """The summary a person reads, in the style of ``proctor grade``."""

    def c(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    run = doc["run"]
    title = (
        f"{PROG}: EvalRun {run['namespace']}/{run['name']}, CaseSet {doc['caseSet']} ({doc['cases']} cases)"
    )
    if doc.get("target"):
        title += f", {doc['target']}"
    lines = [c(_BOLD, title), ""]
    if doc["tiers"]:
        lines.append(f"  {'tier':<8}{'passed':>8}{'measured':>10}{'total':>7}{'rate':>9}{'threshold':>11}")
        for name, t in doc["tiers"].items():
            rate, threshold = t.get("rate"), float(t.get("threshold") or 0)
            clean = t.get("passed") == t.get("total")
            below = rate is not None and rate < threshold
            state = "ok" if clean else "below threshold" if below else "not clean"
            base = t.get("baseline")
            if (
                doc.get("reason") == "RegressedFromBaseline"
                and base is not None
                and rate is not None
                and rate < base
            ):
                state = "regressed"
            mark = c(
                _RED if state in ("below threshold", "regressed") else _GREEN if state == "ok" else _YELLOW,
                state,
            )
            lines.append(
                f"  {name:<8}{t.get('passed', 0):>8}{t.get('measured', 0):>10}{t.get('total', 0):>7}"
                f"{_rate(rate):>9}{f'{threshold:g}%':>11}  {mark}"
            )
    failures = doc["failures"]
    if failures:
        count = doc.get("failureCount") or len({f["case"] for f in failures})
        lines += ["", f"  failures ({count} case{'s' if count != 1 else ''}):"]
        for f in failures:
            lines.append(f"    {f['case']} [{f['tier']}] {f['assertion']}: {f['reason']}")
        listed = len({f["case"] for f in failures})
        if count > listed:
            lines.append(
                f"    ... and {count - listed} more case(s): every result is in the results ConfigMaps"
            )
    unmeasured = sum(int(t.get("unmeasured") or 0) for t in doc["tiers"].values())
    if unmeasured:
        lines += [
            "",
            f"  unmeasured: {unmeasured} case(s), reported, never scored (see the results ConfigMaps)",
        ]
    incident = doc.get("incident")
    if incident:
        sig = ", ".join(incident.get("signatures") or [])
        lines += ["", f"  incident: {incident.get('severity')}{f' ({sig})' if sig else ''}"]
    if doc.get("results"):
        names = doc["results"]
        lines += [
            "",
            f"  per-case results: ConfigMap{'s' if len(names) > 1 else ''} {', '.join(names[:4])}"
            f"{' ...' if len(names) > 4 else ''} in {run['namespace']}",
        ]
    v = doc["verdict"]
    reason = f" {doc['reason']}" if doc.get("reason") else ""
    lines += ["", f"{c(_BOLD + _COLOURS.get(v, _RED), v)} (exit {doc['exitCode']}){reason}: {doc['message']}"]
    return "\n".join(lines)


# --- errors and context ----------------------------------------------------------------------------------


def _short(e: BaseException) -> str:
    reason = getattr(e, "reason", None)
    return str(reason or e).splitlines()[0][:300]


def _api_problem(what: str, e: Any) -> str:
    """An API error in words (the server's own message; never a credential)."""
    status = getattr(e, "status", None)
    message = ""
    try:
        message = str(json.loads(getattr(e, "body", None) or "{}").get("message", ""))
    except (ValueError, TypeError, AttributeError):
        message = ""
    message = message or str(getattr(e, "reason", "") or e)
    if status == 401:
        return f"{what}: the API server did not accept the credentials (401 Unauthorized)"
    if status == 403:
        return (
            f"{what}: forbidden: {message} (the gate needs the Role in docs/recipes/gate-rbac.yaml: "
            "create/get/watch EvalRuns; get CaseSets, EvalProfiles, GatePolicies; "
            "create/patch/delete ConfigMaps)"
        )
    return f"{what}: {status} {message}".strip()


def _kube_problem(e: Any, what: str, ns: str) -> str:
    status = getattr(e, "status", None)
    if status == 403:
        return f"{what} in {ns}: forbidden ({e}); the gate needs the Role in docs/recipes/gate-rbac.yaml"
    if status == 401:
        return f"{what}: the API server did not accept the credentials (401 Unauthorized)"
    return str(e)


def _current_namespace() -> str:
    """The current context's namespace, the pod's namespace in a cluster, else ``default``."""
    from kubernetes import config

    kubeconfig = os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())
    if any(Path(p).expanduser().exists() for p in kubeconfig.split(os.pathsep) if p):
        try:
            _, current = cast(Any, config).list_kube_config_contexts()
            ns = (current or {}).get("context", {}).get("namespace")
            if ns:
                return str(ns)
        except Exception:  # a kubeconfig without contexts: load_config reported it already
            pass
        return "default"
    try:
        return SA_NAMESPACE_FILE.read_text().strip() or "default"
    except OSError:
        return "default"
