#!/usr/bin/env bash
# `make demo`: the exam end to end, on the embedded control plane (or the cluster in KUBECONFIG).
#   1. start the local control plane when no cluster is configured
#   2. install the CRDs and run the operator
#   3. grade v1 and v2 of the example agent offline (proctor grade: exit code = verdict)
#   4. apply the examples: the operator runs each exam in a judge Job and writes the verdict
#   5. the rollout gate: the example agent as a gated Deployment, v1 -> v2 held, v1 -> v1.1 rolled out
#   6. arm B, live: the collector (SQLite) judges the agent's traced traffic; kubectl get agentmonitors
#   7. arm B's incident story (hack/demo-story.sh): v2 in production, a trend then a breach, one
#      incident, its notice in a real Alertmanager, the breached runs exported and graded, the breaker
#   8. arm C's ending: reviews of the judge, its quality table, a behaviour pattern, the outcome line
# DEMO_KEEP=1 leaves the control plane running afterwards. Waits scale with PROCTOR_TEST_TIME_SCALE.
set -euo pipefail
cd "$(dirname "$0")/.."
PROCTOR=.venv/bin/proctor
EX=examples/oil-monitoring
say() { STEP="$*"; printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Every wait waits on a condition, at most a deadline scaled by the tests' one setting
# (PROCTOR_TEST_TIME_SCALE, default 1: a busy machine sets 2 or 3).
SCALE="${PROCTOR_TEST_TIME_SCALE:-1}"
scaled() { awk -v s="$1" -v k="$SCALE" 'BEGIN { printf "%d\n", s * k }'; }
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
# The example agent listens on 8080 in its pod. On the local control plane pods are host processes
# (each on a loopback address of its own), so a port 8080 that another program holds on all
# addresses would stop the agent from binding: the demo then moves the example to a free port.
AGENT_PORT=8080
if [[ "$STARTED" == 1 ]] && ! .venv/bin/python -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.9", int(sys.argv[1])))' 8080 2>/dev/null; then
  AGENT_PORT="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  echo "  port 8080 is taken on this machine: the example agent will listen on $AGENT_PORT instead"
fi
# the examples, with the agent's port (unchanged when it is 8080)
agent_port() { [[ "$AGENT_PORT" == 8080 ]] && { cat "$@"; return; }; sed -e "s/containerPort: 8080/containerPort: $AGENT_PORT/; s/port: 8080}/port: $AGENT_PORT}/" \
  -e "s/^\(\s*\)env:\$/\1env:\n\1  - {name: PORT, value: \"$AGENT_PORT\"}/" "$@"; }
OP_PID=""; COLLECTOR_PID=""; JUDGE_PID=""; POLL_PID=""; AM_PID=""
TEMPS=()   # temporary files and directories, removed at the end (kept when the demo failed)
cleanup() {
  local rc="${1:-0}"
  for pid in "$POLL_PID" "$OP_PID" "$COLLECTOR_PID" "$JUDGE_PID" "$AM_PID"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  done
  if (( ${#TEMPS[@]} )); then
    if [[ "$rc" == 0 ]]; then rm -rf "${TEMPS[@]}"; else echo "(logs and data kept for a look: ${TEMPS[*]})"; fi
  fi
  $KUBECTL delete mutatingwebhookconfiguration proctor-gate --ignore-not-found >/dev/null 2>&1 || true
  if [[ "$STARTED" == 1 && "${DEMO_KEEP:-0}" != 1 ]]; then
    $PROCTOR dev down --dir "$DEV_DIR" >/dev/null 2>&1 || true
    echo "(control plane stopped; DEMO_KEEP=1 make demo leaves it running)"
  elif [[ "$STARTED" == 1 ]]; then
    echo "control plane left running: export KUBECONFIG=$KUBECONFIG   (stop it: make dev-down)"
  fi
}
# When a step fails or times out: what a person needs, printed before anything is stopped (the
# objects with their conditions, the last Events, the pods' container states and log tails, the
# operator's and collector's logs), and the likely cause in one sentence.
diagnose() {
  [[ -n "${KUBECTL:-}" ]] || return 0
  printf '\n\033[1;31m== make demo failed%s: what the cluster says (nothing stopped yet)\033[0m\n' "${STEP:+ at: $STEP}"
  $KUBECTL -n "$NS" get evalruns,gatepolicies,agentmonitors,deployments,replicasets,jobs,pods -o wide 2>&1 | cut -c1-200 | indent
  local kind
  for kind in evalruns gatepolicies agentmonitors; do
    $KUBECTL -n "$NS" get "$kind" -o jsonpath='{range .items[*]}{.kind}/{.metadata.name}: phase={.status.phase} verdict={.status.verdict} {.status.message}{"\n"}{range .status.conditions[*]}    {.type}={.status} {.reason}: {.message}{"\n"}{end}{end}' 2>/dev/null | cut -c1-240 | indent
  done
  echo "  -- the last Events"
  $KUBECTL -n "$NS" get events --sort-by=.lastTimestamp -o custom-columns=OBJECT:.involvedObject.kind,NAME:.involvedObject.name,TYPE:.type,REASON:.reason,MESSAGE:.message 2>/dev/null \
    | tail -15 | cut -c1-220 | indent
  local pod
  # the pods that are not simply running or done: waiting, crashing, failed
  for pod in $($KUBECTL -n "$NS" get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' 2>/dev/null \
               | grep -v -e '=Succeeded$' | while IFS== read -r name phase; do
                   ready="$($KUBECTL -n "$NS" get pod "$name" -o jsonpath='{.status.containerStatuses[*].ready}' 2>/dev/null || true)"
                   [[ "$phase" == Running && "$ready" != *false* ]] || echo "$name"
                 done); do
    echo "  -- pod $pod: containers"
    $KUBECTL -n "$NS" get pod "$pod" -o jsonpath='{range .status.initContainerStatuses[*]}    {.name}: ready={.ready} restarts={.restartCount} {.state}{"\n"}{end}{range .status.containerStatuses[*]}    {.name}: ready={.ready} restarts={.restartCount} {.state}{"\n"}{end}' 2>/dev/null | cut -c1-240
    $KUBECTL -n "$NS" logs "$pod" --all-containers --tail=10 --prefix 2>/dev/null | cut -c1-200 | indent
  done
  [[ -n "${LOG:-}" && -s "${LOG:-}" ]] && { echo "  -- operator log ($LOG), last lines"; tail -15 "$LOG" | cut -c1-200 | indent; }
  [[ -n "${LIVE_DIR:-}" && -s "$LIVE_DIR/collector.log" ]] && { echo "  -- collector log, last lines"; tail -10 "$LIVE_DIR/collector.log" | cut -c1-200 | indent; }
  printf '\033[1m  likely cause: %s\033[0m\n' "$(likely_cause)"
}
# One sentence from what the cluster says: an exam that ended ERROR (with its message), a container
# that crashed, else the step that did not finish.
likely_cause() {
  local err crash
  err="$($KUBECTL -n "$NS" get evalruns -o jsonpath='{range .items[?(@.status.verdict=="ERROR")]}EvalRun {.metadata.name} ended ERROR: {.status.message}{"\n"}{end}' 2>/dev/null | head -1)"
  if [[ -n "$err" ]]; then echo "$err" | cut -c1-300; return; fi
  crash="$($KUBECTL -n "$NS" get pods -o jsonpath='{range .items[*]}{range .status.initContainerStatuses[?(@.lastState.terminated.exitCode>0)]}container {.name} exited {.lastState.terminated.exitCode} ({.lastState.terminated.reason}), restarted {.restartCount} times{"\n"}{end}{range .status.containerStatuses[?(@.lastState.terminated.exitCode>0)]}container {.name} exited {.lastState.terminated.exitCode} ({.lastState.terminated.reason}), restarted {.restartCount} times{"\n"}{end}{range .status.containerStatuses[?(@.state.terminated.exitCode>0)]}container {.name} exited {.state.terminated.exitCode} ({.state.terminated.reason}){"\n"}{end}{end}' 2>/dev/null | head -1)"
  if [[ -n "$crash" ]]; then echo "$crash; its log tail is above"; return; fi
  echo "the step '${STEP:-?}' did not finish in time; the conditions and Events above say where it stopped"
}
# Wait for a condition on an object, but stop at once (with the cause) when an exam in the namespace
# ends ERROR: nobody should wait five minutes for a run that will never pass.
wait_for() {  # wait_for RESOURCE CONDITION TIMEOUT_SECONDS [LABEL_SELECTOR of the exams to watch]
  local what="$1" cond="$2" timeout exams="${4:-}" start=$SECONDS err note=0
  timeout="$(scaled "$3")"
  STEP="kubectl wait --for=condition=$cond $what"
  while (( SECONDS - start < timeout )); do
    if [[ "$($KUBECTL -n "$NS" get "$what" -o jsonpath="{.status.conditions[?(@.type==\"$cond\")].status}" 2>/dev/null)" == True ]]; then
      return 0
    fi
    err=""
    [[ -n "$exams" ]] && err="$($KUBECTL -n "$NS" get evalruns -l "$exams" -o jsonpath='{range .items[?(@.status.verdict=="ERROR")]}{.metadata.name}{" "}{end}' 2>/dev/null || true)"
    if [[ -n "$err" ]]; then
      echo "  an exam ended ERROR while waiting for $cond on $what: $err"
      return 1
    fi
    if (( SECONDS - start >= note )); then
      (( note > 0 )) && echo "  ... still waiting for $cond on $what ($((SECONDS - start)) s of ${timeout} s)"
      note=$(( note + 30 ))
    fi
    sleep 2
  done
  echo "  timed out after ${timeout} s waiting for $cond on $what"
  return 1
}
STEP=""
on_exit() {
  local rc=$?
  if [[ $rc -ne 0 ]]; then diagnose || true; fi
  cleanup "$rc"
  exit $rc
}
trap on_exit EXIT
$KUBECTL version 2>/dev/null | indent

say "installing the CRDs"
$KUBECTL apply --server-side --force-conflicts -f crds/ | indent
$KUBECTL wait --for=condition=Established -f crds/ --timeout="$(scaled 60)s" >/dev/null

say "running the operator (proctor operator)"
LOG="$(mktemp -t proctor-operator.XXXX.log)"; TEMPS+=("$LOG")
WEBHOOK_ENV=()
if [[ "$STARTED" == 1 ]]; then  # the local API server reaches the webhook on loopback
  WEBHOOK_PORT="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  WEBHOOK_ENV=(PROCTOR_WEBHOOK_PORT="$WEBHOOK_PORT" PROCTOR_WEBHOOK_ADDR=127.0.0.1 PROCTOR_WEBHOOK_URL_HOST=127.0.0.1
               PROCTOR_WEBHOOK_CERT_DIR="$(mktemp -d -t proctor-webhook.XXXX)")
  TEMPS+=("${WEBHOOK_ENV[-1]#*=}")
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
# the policy before the runs that name it (a run whose policyRef names nothing is ERROR at once)
$KUBECTL -n "$NS" apply -f $EX/caseset.yaml | indent
sed "s/^\(\s*\)port: 8080\$/\1port: $AGENT_PORT/" $EX/gatepolicy.yaml | $KUBECTL -n "$NS" apply -f - | indent
$KUBECTL -n "$NS" apply -f $EX/runs.yaml | indent
wait_for evalrun/oil-v1 Finished 180
wait_for evalrun/oil-v2 Finished 180

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
agent_port examples/agent/deployment.yaml | $KUBECTL -n "$NS" apply -f - | indent
echo "  the policy observes until v1 is approved and its determinism canary agrees with itself..."
wait_for gatepolicy/oil-monitoring Enforcing 300 proctor.dev/gate-policy=oil-monitoring
$KUBECTL -n "$NS" get gatepolicy oil-monitoring -o jsonpath='{range .status.conditions[*]}  {.type}={.status} {.reason}: {.message}{"\n"}{end}'

say "v1 -> v2 (the 0.30 qt/hr band-boundary bug): kubectl set image deployment/oil-agent agent=proctor-example-agent:v2"
$KUBECTL -n "$NS" set image deployment/oil-agent agent=proctor-example-agent:v2 2>&1 | indent
wait_for gatepolicy/oil-monitoring RolloutBlocked 300 proctor.dev/gate-policy=oil-monitoring
$KUBECTL -n "$NS" get deployment oil-agent -o custom-columns=NAME:.metadata.name,PAUSED:.spec.paused,IMAGE:.spec.template.spec.containers[0].image | indent
$KUBECTL -n "$NS" get gatepolicy oil-monitoring -o jsonpath='{range .status.conditions[?(@.type=="RolloutBlocked")]}  RolloutBlocked={.status} {.reason}: {.message}{"\n"}{end}'
$KUBECTL -n "$NS" get replicasets -l app=oil-agent -o custom-columns=REPLICASET:.metadata.name,IMAGE:.spec.template.spec.containers[0].image,READY:.status.readyReplicas | indent

say "v2 -> v1.1 (correct): kubectl set image deployment/oil-agent agent=proctor-example-agent:v1.1"
$KUBECTL -n "$NS" set image deployment/oil-agent agent=proctor-example-agent:v1.1 2>&1 | indent
for _ in $(seq 1 "$(scaled 150)"); do
  [[ "$($KUBECTL -n "$NS" get deployment oil-agent -o jsonpath='{.spec.paused}')" != "true" ]] && break; sleep 2
done
$KUBECTL -n "$NS" rollout status deployment/oil-agent --timeout="$(scaled 120)s" | indent
$KUBECTL -n "$NS" get deployment oil-agent -o custom-columns=NAME:.metadata.name,PAUSED:.spec.paused,IMAGE:.spec.template.spec.containers[0].image | indent
say "gate events on the Deployment"
$KUBECTL -n "$NS" get events --field-selector involvedObject.name=oil-agent,involvedObject.kind=Deployment --sort-by=.lastTimestamp \
  -o custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message | grep -v ScalingReplicaSet | cut -c1-160 | indent

say "arm B, live: the agent in production, traced with OpenTelemetry, judged by the collector"
free_port() { .venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
LIVE_DIR="$(mktemp -d -t proctor-live.XXXX)"; TEMPS+=("$LIVE_DIR")
# the judge of live runs: a local OpenAI-compatible judge server (a real HTTP server; in production
# the profile's endpoint is any OpenAI-compatible model) that checks each band reading the agent
# gives against the manual: factual_grounding is 92 less 40 x the share that disagree, the rest 92
.venv/bin/python hack/demo_judge.py >"$LIVE_DIR/judge.url" 2>"$LIVE_DIR/judge.log" &
JUDGE_PID=$!
for _ in $(seq 1 "$(scaled 50)"); do [[ -s "$LIVE_DIR/judge.url" ]] && break; sleep 0.2; done
JUDGE_URL="$(head -1 "$LIVE_DIR/judge.url")"
echo "  judge: hack/demo_judge.py at $JUDGE_URL (checks each band reading against AMM 72-00: 92 when all agree)"

COLLECTOR_URL="http://127.0.0.1:$(free_port)"
# the AgentMonitor's own ingestion token (its Secret oil-agent-ingest): what its agents send
INGEST_TOKEN="$(.venv/bin/python -c 'import secrets; print(secrets.token_hex(16))')"
echo "  proctor collector --db sqlite:///$LIVE_DIR/collector.db --listen ${COLLECTOR_URL#http://} -n $NS"
$PROCTOR collector --db "sqlite:///$LIVE_DIR/collector.db" --listen "${COLLECTOR_URL#http://}" -n "$NS" \
  --poll 0.5 --refresh 1 >"$LIVE_DIR/collector.log" 2>&1 &
COLLECTOR_PID=$!
for _ in $(seq 1 "$(scaled 100)"); do curl -sf "$COLLECTOR_URL/readyz" >/dev/null && break; sleep 0.3; done
curl -sf "$COLLECTOR_URL/readyz" >/dev/null \
  || { echo "  the collector did not start:"; tail -20 "$LIVE_DIR/collector.log" | indent; exit 1; }
echo "  pid $COLLECTOR_PID, embedded SQLite (WAL), log $LIVE_DIR/collector.log"

say "what it watches: kubectl apply -f $EX/evalprofile.yaml -f $EX/agentmonitor.yaml"
# RBAC decides who reads runs: the operator may get AgentMonitors; an SRE may also evaluate now
$KUBECTL -n "$NS" apply -f $EX/live-rbac.yaml >/dev/null
# the operator is restarted below with the collector's URL: stopped first, so that its first look
# at the AgentMonitor already reads the collector
kill "$OP_PID" 2>/dev/null || true; wait "$OP_PID" 2>/dev/null || true; OP_PID=""
$KUBECTL -n "$NS" create secret generic judge-api-key --from-literal=api-key=demo-not-a-real-key \
  --dry-run=client -o yaml | $KUBECTL apply -f - >/dev/null
$KUBECTL -n "$NS" create secret generic oil-agent-ingest --from-literal=token="$INGEST_TOKEN" \
  --dry-run=client -o yaml | $KUBECTL apply -f - >/dev/null
# the demo's judge is local, and it waits 5 s of quiet before judging a run, not 90
sed "s#http://judge.proctor-system.svc:8080/v1#$JUDGE_URL#" $EX/evalprofile.yaml | $KUBECTL -n "$NS" apply -f - | indent
sed 's/quiescenceSeconds: 90/quiescenceSeconds: 5/' $EX/agentmonitor.yaml | $KUBECTL -n "$NS" apply -f - | indent
# tokens for the collector's audience: worth nothing at the API server
SRE_TOKEN="$($KUBECTL -n "$NS" create token sre --audience proctor-collector)"
for _ in $(seq 1 "$(scaled 60)"); do
  curl -sf -H "Authorization: Bearer $SRE_TOKEN" "$COLLECTOR_URL/api/v1/monitors/$NS/oil-agent" >/dev/null && break; sleep 0.5
done
echo "  the collector serves AgentMonitor $NS/oil-agent (it lists them every second here, 15 s by default)"

say "the operator, beside it: PROCTOR_COLLECTOR_URL=$COLLECTOR_URL proctor operator -n $NS"
# here the operator runs with the admin's client certificate, which is no ServiceAccount: it is
# given a token of its ServiceAccount for the collector's audience (in a pod it requests one
# itself, TokenRequest, and the chart sets the URL)
env "${WEBHOOK_ENV[@]}" PROCTOR_METRICS_PORT=0 PROCTOR_RECONCILE_INTERVAL=2 PROCTOR_MONITOR_INTERVAL=2 \
  PROCTOR_COLLECTOR_URL="$COLLECTOR_URL" PROCTOR_COLLECTOR_TOKEN="$($KUBECTL -n "$NS" create token proctor-operator --audience proctor-collector)" \
  $PROCTOR operator -n "$NS" --liveness http://127.0.0.1:0/healthz >>"$LOG" 2>&1 &
OP_PID=$!
$KUBECTL -n "$NS" wait --for=condition=Receiving=False agentmonitor/oil-agent --timeout="$(scaled 60)s" >/dev/null \
  || { echo "  the operator did not read the collector; log: $LOG"; tail -20 "$LOG" | indent; exit 1; }
echo "  pid $OP_PID; it reads each AgentMonitor's summary from the collector as its ServiceAccount:"
$KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath='{range .status.conditions[?(@.type=="Receiving")]}  {.type}={.status} {.reason}: {.message}{"\n"}{end}'

say "the v1 agent, traced: kubectl apply -f examples/agent/live.yaml (OTEL_EXPORTER_OTLP_ENDPOINT -> the collector)"
$KUBECTL -n "$NS" create secret generic oil-agent-otlp --from-literal=headers="Authorization=Bearer $INGEST_TOKEN" \
  --dry-run=client -o yaml | $KUBECTL apply -f - >/dev/null
sed "s#http://proctor-collector.proctor-system.svc:4318#$COLLECTOR_URL#" examples/agent/live.yaml | agent_port | $KUBECTL -n "$NS" apply -f - | indent
$KUBECTL -n "$NS" rollout status deployment/oil-agent-live --timeout="$(scaled 120)s" | indent
AGENT_IP="$($KUBECTL -n "$NS" get pods -l app=oil-agent-live -o jsonpath='{.items[0].status.podIP}')"

# the runs' lives, watched from before the first question: the runs API (what proctor runs
# list -o json reads), polled; each state a run is seen in
watch_runs() {
  declare -A seen=()
  local start=$SECONDS all=0
  for _ in $(seq 1 "$(scaled 600)"); do
    all=1
    while read -r id state; do
      [[ -z "$id" ]] && continue
      if [[ "${seen[$id]:-}" != "$state" ]]; then
        printf '  t+%3ss  %s  %s\n' "$((SECONDS - start))" "$id" "$state"; seen[$id]="$state"
      fi
      [[ "$state" == Evaluated || "$state" == PartiallyEvaluated || "$state" == EvaluationFailed ]] || all=0
    done < <(curl -sf -H "Authorization: Bearer $SRE_TOKEN" "$COLLECTOR_URL/api/v1/runs?namespace=$NS" \
             | jq -r '.runs[] | "\(.id) \(.state)"' 2>/dev/null)
    if [[ ${#seen[@]} -ge 3 && "$all" == 1 ]]; then echo ok >"$LIVE_DIR/judged"; return 0; fi
    sleep 0.2
  done
}
watch_runs >"$LIVE_DIR/lives.txt" 2>&1 &
POLL_PID=$!

say "traffic: four questions in three conversations (POST /ask); each turn a trace of GenAI spans"
ask() {
  curl -s "http://$AGENT_IP:$AGENT_PORT/ask" -H 'Content-Type: application/json' \
    -d "$(jq -nc --arg q "$2" --arg c "$1" '{question: $q, conversation: $c}')" \
    | jq -r --arg q "$2" '"  [\(.conversation)] \($q)\n      -> \(.answer)"'
}
ask shift-7-engine-2 "Oil consumption on engine 2 is exactly 0.30 qt/hr. Is that normal?"
ask shift-7-engine-2 "Is 0.45 qt/hr acceptable for dispatch?"
ask shift-7-engine-1 "Engine 1 burns 0.60 qt/hr. Which band?"
ask apu-question "What is the oil consumption limit for the auxiliary power unit?"

say "the runs' lives (GET /api/v1/runs, polled from before the first question): a run is judged once quiet for quiescenceSeconds"
wait "$POLL_PID" || true; POLL_PID=""
cat "$LIVE_DIR/lives.txt"
[[ -s "$LIVE_DIR/judged" ]] \
  || { echo "  the runs were not all judged; collector log:"; tail -20 "$LIVE_DIR/collector.log" | indent; exit 1; }
export PROCTOR_SERVER="$COLLECTOR_URL"
export PROCTOR_API_TOKEN="$SRE_TOKEN"   # the runs API asks RBAC about this token

say "proctor runs list"
$PROCTOR runs list | indent
RUN="$($PROCTOR runs list -o json | jq -r '.[-1].id')"
say "proctor runs show $RUN   (the trajectory the judge saw, each score with its threshold)"
$PROCTOR runs show "$RUN" | cut -c1-150 | indent
say "RBAC decides: the operator's ServiceAccount may read runs, not evaluate them now"
set +e
$PROCTOR runs evaluate "$RUN" --token "$($KUBECTL -n "$NS" create token proctor-operator --audience proctor-collector)" 2>&1 | indent
rc=${PIPESTATUS[0]}; set -e
echo "  -> exit code $rc"

say "kubectl get agentmonitors   (the operator's summary: RUNS, BREACHED, SAFETY; -o wide adds WORST)"
for _ in $(seq 1 "$(scaled 60)"); do
  [[ "$($KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath='{.status.runs.evaluated}')" -ge 3 ]] 2>/dev/null && break; sleep 1
done
$KUBECTL -n "$NS" get agentmonitors | indent
$KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath='{range .status.dimensions[*]}  {.name}: latest {.latest}, fast EWMA {.fastEwma}, slow EWMA {.slowEwma} ({.samples} scored){"\n"}{end}'
$KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath='{range .status.conditions[*]}  {.type}={.status} {.reason}: {.message}{"\n"}{end}' | cut -c1-160
say "events on the AgentMonitor"
$KUBECTL -n "$NS" get events --field-selector involvedObject.kind=AgentMonitor --sort-by=.lastTimestamp \
  -o custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message | cut -c1-160 | indent

# arm B's incident story and arm C's ending (the same shell: the objects, tokens and servers above)
source hack/demo-story.sh
