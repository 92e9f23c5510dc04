#!/usr/bin/env bash
# Build Argo Rollouts' controller and a tiny evaluator of its analysis conditions from the Go
# module github.com/argoproj/argo-rollouts, into a cache outside the repository (like build-k8s.sh).
#
#   hack/build-argo-rollouts.sh              build the evaluator if missing, print the bin directory
#   hack/build-argo-rollouts.sh --controller also build rollouts-controller (did not finish within a
#                                            15-minute time box on the shared 2-core machine)
#   hack/build-argo-rollouts.sh --print      print the bin directory only
#   hack/build-argo-rollouts.sh --crds       print the directory of the module's CRDs (downloads the module only)
#
# The evaluator (proctor-argo-eval) is Argo's own utils/evaluate.EvaluateResult on a JSON body:
# what the controller's web provider does with an answer, so the README's AnalysisTemplate is
# checked against Argo's real expression language, not a reimplementation.
# Environment: PROCTOR_ARGO_ROLLOUTS_VERSION, PROCTOR_CACHE (default ~/.cache/proctor).
set -euo pipefail

VERSION="${PROCTOR_ARGO_ROLLOUTS_VERSION:-v1.8.3}"
MODULE="github.com/argoproj/argo-rollouts"
CACHE="${PROCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor}"
BIN="$CACHE/argo-rollouts/$VERSION/bin"
SRC="$CACHE/argo-rollouts/src-$VERSION"

log() { echo "build-argo-rollouts: $*" >&2; }
die() { echo "build-argo-rollouts: error: $*" >&2; exit 1; }

if [[ "${1:-}" == "--print" ]]; then echo "$BIN"; exit 0; fi
command -v go >/dev/null 2>&1 || die "Go is not installed or not on PATH"
export GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 GOTOOLCHAIN=local

module_dir() {
  local out
  out="$(go mod download -json "$MODULE@$VERSION" 2>&1)" || die "the Go module proxy did not serve $MODULE@$VERSION:
$out"
  echo "$out" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}

if [[ "${1:-}" == "--crds" ]]; then echo "$(module_dir)/manifests/crds"; exit 0; fi
targets=(./cmd/proctor-argo-eval)
want=(proctor-argo-eval)
if [[ "${1:-}" == "--controller" ]]; then targets+=(./cmd/rollouts-controller); want+=(rollouts-controller); fi
have=1
for b in "${want[@]}"; do [[ -x "$BIN/$b" ]] || have=0; done
if (( have )); then echo "$BIN"; exit 0; fi

export GOCACHE="$CACHE/argo-rollouts/go-build"
trap 'rm -rf "$GOCACHE"' EXIT
dir="$(module_dir)"
rm -rf "$SRC"; mkdir -p "$SRC" "$BIN"
cp -r "$dir"/. "$SRC"/; chmod -R u+w "$SRC"
mkdir -p "$SRC/cmd/proctor-argo-eval"
cat > "$SRC/cmd/proctor-argo-eval/main.go" <<'GOMAIN'
// Command proctor-argo-eval reads a JSON body on stdin and prints the phase Argo Rollouts gives a
// web metric's measurement of it (utils/evaluate.EvaluateResult, the controller's own code).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sirupsen/logrus"

	"github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"github.com/argoproj/argo-rollouts/utils/evaluate"
)

func main() {
	success := flag.String("success", "", "successCondition")
	failure := flag.String("failure", "", "failureCondition")
	flag.Parse()
	body, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var result any
	if err := json.Unmarshal(body, &result); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	metric := v1alpha1.Metric{SuccessCondition: *success, FailureCondition: *failure}
	phase, err := evaluate.EvaluateResult(result, metric, *logrus.NewEntry(logrus.New()))
	if err != nil {
		fmt.Printf("%s %s\n", phase, err)
		return
	}
	fmt.Println(phase)
}
GOMAIN
start=$(date +%s)
log "building ${want[*]} $VERSION (several minutes on 2 cores)"
(cd "$SRC" && go build -trimpath -ldflags "-s -w" -o "$BIN/" "${targets[@]}") \
  || die "the build failed (see above)"
log "built in $(( $(date +%s) - start )) s: $BIN"
rm -rf "$SRC"
echo "$BIN"
