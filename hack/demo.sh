#!/usr/bin/env bash
# `make demo`: the exam end to end, on the embedded control plane (or the cluster in KUBECONFIG).
#   1. start the local control plane when no cluster is configured
#   2. install the CRDs and run the operator
#   3. grade v1 and v2 of the example agent offline (proctor grade: exit code = verdict)
#   4. apply the examples: the operator runs each exam in a judge Job and writes the verdict
# DEMO_KEEP=1 leaves the control plane running afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
PROCTOR=.venv/bin/proctor
EX=examples/oil-monitoring
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
indent() { sed 's/^/  /'; }

NS=proctor-demo
STARTED=0
# the node stand-in runs the example agent's image as a local command (the tag is its version)
export PROCTOR_NODE_IMAGES="${PROCTOR_NODE_IMAGES:-proctor-example-agent=$PWD/.venv/bin/python $PWD/examples/agent/agent.py}"
if [[ -z "${KUBECONFIG:-}" ]]; then
  say "starting the local control plane (etcd, kube-apiserver, kube-controller-manager, node stand-in)"
  DEV_DIR="${PROCTOR_DEV_DIR:-$HOME/.cache/proctor/dev}"
  eval "$($PROCTOR dev up --dir "$DEV_DIR")"
  STARTED=1
else
  say "using the cluster in KUBECONFIG=$KUBECONFIG"
fi
KUBECTL="$(bash hack/build-k8s.sh --print)/kubectl"; [[ -x "$KUBECTL" ]] || KUBECTL=kubectl
OP_PID=""
cleanup() {
  if [[ -n "$OP_PID" ]]; then kill "$OP_PID" 2>/dev/null || true; wait "$OP_PID" 2>/dev/null || true; fi
  $KUBECTL delete mutatingwebhookconfiguration proctor-gate --ignore-not-found >/dev/null 2>&1 || true
  if [[ "$STARTED" == 1 && "${DEMO_KEEP:-0}" != 1 ]]; then
    $PROCTOR dev down --dir "$DEV_DIR" >/dev/null 2>&1 || true
    echo "(control plane stopped; DEMO_KEEP=1 make demo leaves it running)"
  elif [[ "$STARTED" == 1 ]]; then
    echo "control plane left running: export KUBECONFIG=$KUBECONFIG   (stop it: make dev-down)"
  fi
}
trap cleanup EXIT
$KUBECTL version 2>/dev/null | indent

say "installing the CRDs"
$KUBECTL apply --server-side --force-conflicts -f crds/ | indent
$KUBECTL wait --for=condition=Established -f crds/ --timeout=60s >/dev/null

say "running the operator (proctor operator)"
LOG="$(mktemp -t proctor-operator.XXXX.log)"
WEBHOOK_ENV=()
if [[ "$STARTED" == 1 ]]; then  # the local API server reaches the webhook on loopback
  WEBHOOK_PORT="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  WEBHOOK_ENV=(PROCTOR_WEBHOOK_PORT="$WEBHOOK_PORT" PROCTOR_WEBHOOK_ADDR=127.0.0.1 PROCTOR_WEBHOOK_URL_HOST=127.0.0.1
               PROCTOR_WEBHOOK_CERT_DIR="$(mktemp -d -t proctor-webhook.XXXX)")
fi
env "${WEBHOOK_ENV[@]}" PROCTOR_METRICS_PORT=0 PROCTOR_RECONCILE_INTERVAL=2 $PROCTOR operator -n "$NS" \
  --liveness http://127.0.0.1:0/healthz >"$LOG" 2>&1 &
OP_PID=$!
echo "  pid $OP_PID, log $LOG"

say "offline: proctor grade on recorded answers (no cluster needed; exit code = verdict)"
for v in v1-correct v2-band-bug; do
  set +e; $PROCTOR grade $EX/caseset.yaml --responses $EX/answers/$v.yaml --policy $EX/gatepolicy.yaml | indent
  rc=${PIPESTATUS[0]}; set -e
  echo "  -> exit code $rc"; echo
done

say "in the cluster: the same exams as EvalRuns, run by the operator in judge Jobs"
$KUBECTL create namespace "$NS" --dry-run=client -o yaml | $KUBECTL apply -f - >/dev/null
$KUBECTL -n "$NS" delete evalruns --all --ignore-not-found >/dev/null
for v in v1:v1-correct v2:v2-band-bug; do
  $KUBECTL -n "$NS" create configmap "oil-answers-${v%%:*}" --from-file=answers.yaml="$EX/answers/${v#*:}.yaml" \
    --dry-run=client -o yaml | $KUBECTL apply -f - >/dev/null
done
$KUBECTL -n "$NS" apply -f $EX/caseset.yaml -f $EX/gatepolicy.yaml -f $EX/runs.yaml | indent
$KUBECTL -n "$NS" wait --for=condition=Finished evalrun/oil-v1 evalrun/oil-v2 --timeout=180s >/dev/null \
  || { echo "  the runs did not finish; operator log: $LOG"; tail -20 "$LOG" | indent; exit 1; }

say "kubectl get casesets,evalruns,jobs"
$KUBECTL -n "$NS" get casesets,evalruns,jobs | indent
say "why oil-v2 failed (kubectl get evalrun oil-v2 -o jsonpath=... ; see also kubectl describe)"
$KUBECTL -n "$NS" get evalrun oil-v2 -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}' | indent
echo
$KUBECTL -n "$NS" get evalrun oil-v2 -o jsonpath='{range .status.firstFailures[*]}{.case} [{.tier}] {.assertion}: {.reason}{"\n"}{end}' | indent
say "events"
$KUBECTL -n "$NS" get events --field-selector involvedObject.kind=EvalRun --sort-by=.lastTimestamp \
  -o custom-columns=OBJECT:.involvedObject.name,TYPE:.type,REASON:.reason,MESSAGE:.message | cut -c1-150 | indent

if [[ "$STARTED" != 1 ]]; then
  echo; echo "(the rollout-gate story needs the local control plane: it runs the example agent through the node stand-in)"
  exit 0
fi

say "the rollout gate: the example agent as a Deployment gated by GatePolicy oil-monitoring"
$KUBECTL -n "$NS" apply -f examples/agent/deployment.yaml | indent
echo "  the policy observes until v1 is approved and its determinism canary agrees with itself..."
$KUBECTL -n "$NS" wait --for=condition=Enforcing gatepolicy/oil-monitoring --timeout=300s >/dev/null
$KUBECTL -n "$NS" get gatepolicy oil-monitoring -o jsonpath='{range .status.conditions[*]}  {.type}={.status} {.reason}: {.message}{"\n"}{end}'

say "v1 -> v2 (the 0.30 qt/hr band-boundary bug): kubectl set image deployment/oil-agent agent=proctor-example-agent:v2"
$KUBECTL -n "$NS" set image deployment/oil-agent agent=proctor-example-agent:v2 2>&1 | indent
$KUBECTL -n "$NS" wait --for=condition=RolloutBlocked gatepolicy/oil-monitoring --timeout=300s >/dev/null
$KUBECTL -n "$NS" get deployment oil-agent -o custom-columns=NAME:.metadata.name,PAUSED:.spec.paused,IMAGE:.spec.template.spec.containers[0].image | indent
$KUBECTL -n "$NS" get gatepolicy oil-monitoring -o jsonpath='{range .status.conditions[?(@.type=="RolloutBlocked")]}  RolloutBlocked={.status} {.reason}: {.message}{"\n"}{end}'
$KUBECTL -n "$NS" get replicasets -l app=oil-agent -o custom-columns=REPLICASET:.metadata.name,IMAGE:.spec.template.spec.containers[0].image,READY:.status.readyReplicas | indent

say "v2 -> v1.1 (correct): kubectl set image deployment/oil-agent agent=proctor-example-agent:v1.1"
$KUBECTL -n "$NS" set image deployment/oil-agent agent=proctor-example-agent:v1.1 2>&1 | indent
for _ in $(seq 1 150); do
  [[ "$($KUBECTL -n "$NS" get deployment oil-agent -o jsonpath='{.spec.paused}')" != "true" ]] && break; sleep 2
done
$KUBECTL -n "$NS" rollout status deployment/oil-agent --timeout=120s | indent
$KUBECTL -n "$NS" get deployment oil-agent -o custom-columns=NAME:.metadata.name,PAUSED:.spec.paused,IMAGE:.spec.template.spec.containers[0].image | indent
say "gate events on the Deployment"
$KUBECTL -n "$NS" get events --field-selector involvedObject.name=oil-agent,involvedObject.kind=Deployment --sort-by=.lastTimestamp \
  -o custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message | grep -v ScalingReplicaSet | cut -c1-160 | indent
