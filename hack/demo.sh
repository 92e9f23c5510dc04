#!/usr/bin/env bash
# `make demo`: the whole story on the embedded default, or on the cluster in KUBECONFIG.
#   1. start the local control plane when no cluster is configured
#   2. install the CRDs, run the operator, apply examples/
#   3. grade the examples' recorded answers offline and show what the cluster holds
# DEMO_KEEP=1 leaves the control plane running afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
PROCTOR=.venv/bin/proctor
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [[ -z "${KUBECONFIG:-}" ]]; then
  say "starting the local control plane (etcd, kube-apiserver, kube-controller-manager, node stand-in)"
  DEV_DIR="${PROCTOR_DEV_DIR:-$HOME/.cache/proctor/dev}"
  eval "$($PROCTOR dev up --dir "$DEV_DIR")"
  STARTED=1
else
  say "using the cluster in KUBECONFIG=$KUBECONFIG"
  STARTED=0
fi
KUBECTL="$(bash hack/build-k8s.sh --print)/kubectl"; [[ -x "$KUBECTL" ]] || KUBECTL=kubectl
OP_PID=""
cleanup() {
  [[ -n "$OP_PID" ]] && kill "$OP_PID" 2>/dev/null && wait "$OP_PID" 2>/dev/null || true
  if [[ "$STARTED" == 1 && "${DEMO_KEEP:-0}" != 1 ]]; then
    $PROCTOR dev down --dir "$DEV_DIR" >/dev/null 2>&1 || true
    echo "(control plane stopped; DEMO_KEEP=1 make demo leaves it running)"
  elif [[ "$STARTED" == 1 ]]; then
    echo "control plane left running:  export KUBECONFIG=$KUBECONFIG   (stop: make dev-down)"
  fi
}
trap cleanup EXIT
$KUBECTL version 2>/dev/null | sed 's/^/  /'

if compgen -G "crds/*.yaml" >/dev/null; then
  say "installing the CRDs"
  $KUBECTL apply --server-side -f crds/ | sed 's/^/  /'
  $KUBECTL wait --for=condition=Established crd -l app.kubernetes.io/part-of=proctor --timeout=60s >/dev/null 2>&1 || \
    $KUBECTL wait --for=condition=Established -f crds/ --timeout=60s >/dev/null
fi

say "running the operator"
LOG="$(mktemp -t proctor-operator.XXXX.log)"
$PROCTOR operator --liveness http://127.0.0.1:0/healthz >"$LOG" 2>&1 &
OP_PID=$!
echo "  pid $OP_PID, log $LOG"

if [[ -d examples ]] && compgen -G "examples/*/*.yaml" >/dev/null; then
  for d in examples/*/; do
    [[ -f "$d/kustomization.yaml" || -n "$(ls "$d"/*.k8s.yaml 2>/dev/null)" ]] || continue
    say "applying $d"
    $KUBECTL apply -f "$d" --selector='!proctor.dev/offline-only' 2>&1 | sed 's/^/  /' || true
  done
fi

if [[ -x hack/demo-grade.sh ]]; then bash hack/demo-grade.sh; fi

sleep 3
say "what the cluster holds"
$KUBECTL get evalprofiles,casesets,gatepolicies,evalruns -A 2>/dev/null | sed 's/^/  /' || echo "  (no Proctor kinds installed yet)"
