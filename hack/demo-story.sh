# Sourced by hack/demo.sh after arm B's live chapter (same shell: $KUBECTL, $NS, $EX, $PROCTOR,
# $COLLECTOR_URL, $SRE_TOKEN, $LIVE_DIR, say, indent, ask, agent_port, free_port, cleanup's pids).
#   arm B's incident story: the agent's v2 (the 0.30 qt/hr band bug) in production, a trend then a
#   breach, one incident with its cause, its notice once in a real Alertmanager, the breached runs
#   exported as cases and graded, and the circuit breaker's needs_human
#   arm C's ending: reviews of the judge, the judge-quality table, a behaviour pattern, the outcomes
# Every figure printed comes from the collector, the API server or Alertmanager. Waits wait on a
# condition, at most a deadline scaled by PROCTOR_TEST_TIME_SCALE (the tests' one setting).

# until_true SECONDS WHAT COMMAND...: run COMMAND until it succeeds; fail after SECONDS (scaled)
until_true() {
  local timeout what start=$SECONDS
  timeout="$(scaled "$1")"; what="$2"; shift 2
  STEP="waiting for $what"
  until "$@"; do
    if (( SECONDS - start >= timeout )); then echo "  timed out after $timeout s waiting for $what"; return 1; fi
    sleep 0.5
  done
}
runs_json() { curl -sf -H "Authorization: Bearer $SRE_TOKEN" "$COLLECTOR_URL/api/v1/runs?namespace=$NS&limit=500"; }
# judged CONVERSATION...: each conversation's run has been judged
judged() {
  runs_json | jq -e --args '[.runs[] | select(.key as $k | $ARGS.positional | index($k))
      | select(.state == "Evaluated" or .state == "PartiallyEvaluated" or .state == "EvaluationFailed")]
      | length == ($ARGS.positional | length)' "$@" >/dev/null
}
# scores CONVERSATION...: each run as the collector stored it
scores() {
  runs_json | jq -r --args '.runs | sort_by(.firstEventTime)[] | select(.key as $k | $ARGS.positional | index($k))
      | "  \(.id)  \(.key)  revision \(.revision)  factual_grounding \(.scores.factual_grounding.score)\(if .breached then "  BREACHED" else "" end)"' "$@"
}
run_of() { runs_json | jq -r --arg k "$1" '.runs[] | select(.key == $k) | .id'; }
condition() {  # condition TYPE: "Status Reason: message" of the AgentMonitor's condition
  $KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath="{range .status.conditions[?(@.type==\"$1\")]}{.type}={.status} {.reason}: {.message}{end}"
}
condition_is() { [[ "$(condition "$1")" == "$1=$2 "* ]]; }
am_alerts() {  # what Alertmanager's own API lists (firing alerts)
  curl -sf "$AM_URL/api/v2/alerts" | jq -r 'sort_by(.startsAt)[] | "  \(.labels.alertname)  severity=\(.labels.severity)  revision=\(.labels.revision)  incident=\(.labels.incident // "-")  \(.status.state) since \(.startsAt)"'
}
am_has() { [[ "$(curl -sf "$AM_URL/api/v2/alerts" --get --data-urlencode "filter=alertname=\"$1\"" | jq length)" -ge 1 ]]; }
# converse CONVERSATION QUESTION...: the turns of one conversation, in order, to the live agent
converse() { local c="$1" q; shift; for q in "$@"; do ask "$c" "$q"; done; }

say "arm B, the incident story: a real Alertmanager receives the notices (make alertmanager: v0.35.0)"
AM_BIN="$(bash hack/get-alertmanager.sh --print)"
[[ -x "$AM_BIN" ]] || { echo "  Alertmanager is not built at $AM_BIN: run make alertmanager (make demo does)"; exit 1; }
mkdir -p "$LIVE_DIR/alertmanager"
cat >"$LIVE_DIR/alertmanager/am.yml" <<'YAML'
route: {receiver: on-call, group_wait: 1s, group_interval: 1s}
receivers: [{name: on-call}]
YAML
AM_URL="http://127.0.0.1:$(free_port)"
"$AM_BIN" --config.file="$LIVE_DIR/alertmanager/am.yml" --storage.path="$LIVE_DIR/alertmanager/data" \
  --web.listen-address="${AM_URL#http://}" --cluster.listen-address= >"$LIVE_DIR/alertmanager/log" 2>&1 &
AM_PID=$!
until_true 60 "Alertmanager to be ready" curl -sf "$AM_URL/-/ready" -o /dev/null \
  || { tail -20 "$LIVE_DIR/alertmanager/log" | indent; exit 1; }
echo "  $AM_BIN at $AM_URL (pid $AM_PID)"

say "out of shadow mode: kubectl apply -f $EX/agentmonitor-alerting.yaml (notices to Alertmanager)"
sed -e 's/quiescenceSeconds: 90/quiescenceSeconds: 5/' -e "s#http://alertmanager.monitoring.svc:9093#$AM_URL#" \
  $EX/agentmonitor-alerting.yaml | $KUBECTL -n "$NS" apply -f - | indent
# the SRE on call may also acknowledge, approve, review and resolve (RBAC on agentmonitors)
$KUBECTL -n "$NS" apply -f $EX/oncall-rbac.yaml >/dev/null
until_true 60 "Observing=False on the AgentMonitor" condition_is Observing False
$KUBECTL -n "$NS" get agentmonitor oil-agent -o jsonpath='  trend: fast span {.spec.detectors.trend.fastSpan}, slow span {.spec.detectors.trend.slowSpan}, margin {.spec.detectors.trend.margin}; notices again after {.spec.notices.cooldownRuns} runs; breaker: more than {.spec.notices.circuitBreaker.maxNotices} notices in {.spec.notices.circuitBreaker.windowSeconds} s{"\n"}'
echo "  $(condition Observing)" | cut -c1-160

say "v1 -> v2 in production: kubectl set image deployment/oil-agent-live agent=proctor-example-agent:v2 (not gated)"
$KUBECTL -n "$NS" set image deployment/oil-agent-live agent=proctor-example-agent:v2 2>&1 | indent
$KUBECTL -n "$NS" rollout status deployment/oil-agent-live --timeout="$(scaled 120)s" | indent
AGENT_IP="$($KUBECTL -n "$NS" get pods -l app=oil-agent-live --field-selector=status.phase=Running \
  -o jsonpath='{range .items[*]}{.spec.containers[0].image} {.status.podIP} {.metadata.deletionTimestamp}{"\n"}{end}' \
  | awk '$1 ~ /:v2$/ && NF == 2 {print $2; exit}')"
echo "  v2 serves on $AGENT_IP: $(curl -sf "http://$AGENT_IP:$AGENT_PORT/healthz")"

say "v2's first shift: readings away from the boundary (each conversation is a run of revision v2)"
SHIFT1=(v2-shift-8-engine-1 v2-shift-8-engine-2 v2-shift-8-engine-3)
converse v2-shift-8-engine-1 "Engine 1 burns 0.25 qt/hr. Which band?"
converse v2-shift-8-engine-2 "Is 0.45 qt/hr acceptable for dispatch?"
converse v2-shift-8-engine-3 "Engine 3 burns 0.62 qt/hr. Which band?"
until_true 120 "the first shift's runs to be judged" judged "${SHIFT1[@]}"
scores "${SHIFT1[@]}"

say "engine 3 at the boundary: one of its two readings is exactly 0.30 qt/hr"
converse v2-shift-9-engine-3 "Engine 3 burns 0.30 qt/hr. Which band?" "Is 0.45 qt/hr acceptable for dispatch?"
until_true 120 "the engine 3 conversation to be judged" judged v2-shift-9-engine-3
scores v2-shift-9-engine-3
echo "  above its threshold, yet the fast average falls below the slow one: a trend"
until_true 60 "Degrading=True on the AgentMonitor" condition_is Degrading True
echo "  $(condition Degrading)" | cut -c1-200
until_true 60 "ProctorDegrading in Alertmanager" am_has ProctorDegrading
echo "  Alertmanager (GET $AM_URL/api/v2/alerts):"
am_alerts

say "engine 2 at the boundary: both readings are 0.30 qt/hr"
BOUNDARY=("Oil consumption is exactly 0.30 qt/hr. Is that normal?" "Is 0.30 qt/hr acceptable for dispatch?")
converse v2-shift-10-engine-2 "${BOUNDARY[@]}"
until_true 120 "the engine 2 conversation to be judged" judged v2-shift-10-engine-2
scores v2-shift-10-engine-2
until_true 60 "Breached=True on the AgentMonitor" condition_is Breached True
echo "  $(condition Breached)" | cut -c1-200
until_true 60 "ProctorBreach in Alertmanager" am_has ProctorBreach

say "the same bug on two more engines: the incident grows, nobody is told again"
converse v2-shift-11-engine-4 "${BOUNDARY[@]}"
converse v2-shift-11-engine-6 "${BOUNDARY[@]}"
until_true 120 "both conversations to be judged" judged v2-shift-11-engine-4 v2-shift-11-engine-6
scores v2-shift-11-engine-4 v2-shift-11-engine-6
incident_runs() {  # the open incident holds N runs (GET /api/v1/incidents, what proctor incidents list reads)
  curl -sf -H "Authorization: Bearer $SRE_TOKEN" "$COLLECTOR_URL/api/v1/incidents?monitor=$NS/oil-agent&state=open" \
    | jq -e --argjson n "$1" '.incidents | any(.[]; .runs >= $n)' >/dev/null
}
until_true 60 "the incident to hold three runs" incident_runs 3
say "proctor incidents list --monitor $NS/oil-agent"
$PROCTOR incidents list --monitor "$NS/oil-agent" | indent
INCIDENT="$($PROCTOR incidents list --monitor "$NS/oil-agent" --state open -o json | jq -r '.[0].id')"
say "proctor incidents show $INCIDENT   (the cause: revision, step, tool, traces; the recommendations)"
$PROCTOR incidents show "$INCIDENT" | cut -c1-170 | indent
say "Alertmanager's own API after three breached runs (GET /api/v2/alerts)"
am_alerts
curl -sf "$AM_URL/api/v2/alerts" --get --data-urlencode 'filter=alertname="ProctorBreach"' \
  | jq -r '"  ProctorBreach alerts: \(length)  (incident \(.[0].labels.incident), annotations: \(.[0].annotations.summary // .[0].annotations | tostring))"' | cut -c1-200

say "the breached runs as candidate cases: proctor cases export --monitor $NS/oil-agent -o captured.yaml"
$PROCTOR cases export --monitor "$NS/oil-agent" --revision v2 -o "$LIVE_DIR/captured.yaml" 2>&1 | indent
.venv/bin/python - "$LIVE_DIR/captured.yaml" <<'PY' | indent
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
print(f"CaseSet {doc['metadata']['name']}: {len(doc['spec']['cases'])} cases")
for c in doc["spec"]["cases"]:
    print(f"  {c['id']}  tier {c['tier']}  category {c['category']}  dimensions {','.join(c['dimensions'])}"
          f"  context {len(c.get('context', []))} document(s)")
PY
# v2's answers, replayed: what each breached run answered (its case keeps it as what not to answer)
.venv/bin/python - "$LIVE_DIR/captured.yaml" >"$LIVE_DIR/v2-replayed.yaml" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
yaml.safe_dump({c["id"]: c["assert"][0]["value"] for c in doc["spec"]["cases"]}, sys.stdout, width=1000)
PY
say "proctor grade captured.yaml --responses v2-replayed.yaml   (v2's answers again: the next exam catches them)"
set +e; $PROCTOR grade "$LIVE_DIR/captured.yaml" --responses "$LIVE_DIR/v2-replayed.yaml" | cut -c1-160 | indent
rc=${PIPESTATUS[0]}; set -e
echo "  -> exit code $rc"

say "one conversation more: the breach persists past cooldownRuns, a third notice within the hour"
converse v2-shift-12-engine-7 "${BOUNDARY[@]}"
until_true 120 "the conversation to be judged" judged v2-shift-12-engine-7
scores v2-shift-12-engine-7
until_true 60 "NeedsHuman=True on the AgentMonitor" condition_is NeedsHuman True
echo "  $(condition NeedsHuman)" | cut -c1-200
until_true 60 "ProctorNeedsHuman in Alertmanager" am_has ProctorNeedsHuman
echo "  Alertmanager:"
am_alerts
say "kubectl get agentmonitors -o wide"
$KUBECTL -n "$NS" get agentmonitors -o wide | indent

say "arm C: the SRE on call reviews the judge (proctor feedback; the reviewer is the token's identity)"
V1_RUN="$(run_of shift-7-engine-2)"; OK_RUN="$(run_of v2-shift-8-engine-1)"
TREND_RUN="$(run_of v2-shift-9-engine-3)"; BREACH_RUN="$(run_of v2-shift-10-engine-2)"
review() { echo "  \$ proctor feedback$(printf ' %q' "$@")" | cut -c1-170; $PROCTOR feedback "$@" 2>&1 | indent; }
review "$BREACH_RUN" --dimension factual_grounding --agree --minutes 3 --route case-set \
  --reason "0.30 qt/hr is ELEVATED in AMM 72-00, not NORMAL"
review "$TREND_RUN" --dimension factual_grounding --disagree --score 55 --minutes 4 --route decision \
  --reason "a wrong band for 0.30 qt/hr misleads the next dispatch decision"
review "$OK_RUN" --dimension factual_grounding --agree --minutes 1
review "$V1_RUN" --dimension factual_grounding --agree --minutes 1
say "proctor judge-quality --profile $NS/maintenance-rag   (provisional: under 50 reviews)"
$PROCTOR judge-quality --profile "$NS/maintenance-rag" | cut -c1-170 | indent

say "proctor patterns list --monitor $NS/oil-agent   (recurring ways the agent falls short)"
$PROCTOR patterns list --monitor "$NS/oil-agent" | cut -c1-190 | indent
say "proctor patterns guidance --monitor $NS/oil-agent"
$PROCTOR patterns guidance --monitor "$NS/oil-agent" | cut -c1-190 | indent

say "outcomes: what became of each answer (POST /api/v1/runs/RUN/outcome, what proctor outcome RUN OUTCOME sends)"
outcome() {  # outcome CONVERSATION OUTCOME [MINUTES]
  local body; body="$(jq -nc --arg o "$2" --arg m "${3:-}" '{outcome: $o} + (if $m == "" then {} else {minutes: ($m | tonumber)} end)')"
  curl -sf -X POST -H "Authorization: Bearer $SRE_TOKEN" -H 'Content-Type: application/json' -d "$body" \
    "$COLLECTOR_URL/api/v1/runs/$(run_of "$1")/outcome" | jq -r --arg c "$1" '"  \(.run) (\($c)): \(.outcome)\(if .minutes == null then "" else ", \(.minutes) min" end)"'
}
outcome shift-7-engine-2 accepted 1
outcome shift-7-engine-1 accepted 1
outcome v2-shift-8-engine-1 accepted 1
outcome v2-shift-8-engine-2 accepted 2
outcome v2-shift-9-engine-3 modified 6
outcome v2-shift-10-engine-2 rejected 12
outcome apu-question ignored
say "proctor outcome --monitor $NS/oil-agent   (acceptance always beside the human minutes it cost)"
$PROCTOR outcome --monitor "$NS/oil-agent" | indent

say "the end: everything the demo started is stopped, its temporary files removed"
