#!/usr/bin/env bash
# Build helm from the Go module proxy into a cache outside the repository (once; reused after).
#
# Why from modules: this machine reaches only package registries, so the release tarballs on
# get.helm.sh are out. `go install helm.sh/helm/v3/cmd/helm@VERSION` builds the real release
# from its module (helm's go.mod has no replace directives, so `go install mod@version` works).
#
#   hack/get-helm.sh            build helm if missing, print the path of the binary
#   hack/get-helm.sh --print    print the path only (no build)
#
# Environment: PROCTOR_HELM_VERSION (default below), PROCTOR_CACHE (default ~/.cache/proctor).
set -euo pipefail

HELM_VERSION="${PROCTOR_HELM_VERSION:-v3.22.0}"
CACHE="${PROCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor}"
BIN="$CACHE/tools/helm-$HELM_VERSION/bin"
HELM="$BIN/helm"

if [[ "${1:-}" == "--print" ]]; then echo "$HELM"; exit 0; fi
if [[ -x "$HELM" ]]; then echo "$HELM"; exit 0; fi

log() { echo "get-helm: $*" >&2; }
die() { echo "get-helm: error: $*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "Go is not installed or not on PATH.
  helm is built from its Go module (helm.sh/helm/v3@$HELM_VERSION). Install Go >= 1.26
  (https://go.dev/doc/install), or put a helm v3 binary at $HELM."

export GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
# helm's go.mod names the Go version it needs; let the go command fetch that toolchain from
# the module proxy when the local one is older (GOTOOLCHAIN=auto is the default).
mkdir -p "$BIN"
start=$(date +%s)
log "building helm $HELM_VERSION with $(go env GOVERSION) (a few minutes, once)"
# a build cache of our own, removed afterwards (only the binary is kept)
export GOCACHE="$CACHE/tools/helm-go-build"
trap 'rm -rf "$GOCACHE"' EXIT
MOD="helm.sh/helm/v3@$HELM_VERSION"
if ! info="$(go mod download -json "$MOD" 2>&1)"; then
  die "the Go module proxy did not serve $MOD:
$info
  Check GOPROXY ($(go env GOPROXY)); set PROCTOR_HELM_VERSION to a release that
  'go list -m -versions helm.sh/helm/v3' lists."
fi
GOMOD="$(echo "$info" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
# ldflags as helm's own Makefile sets them: the release in `helm version`, and the Kubernetes
# version that `helm template` / `helm lint` assume without a cluster (client-go v0.X.Y -> 1.X;
# left unset it would be v1.20 and a chart's kubeVersion constraint would fail offline).
CLIENT_GO="$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$GOMOD" | head -1)"
[[ -n "$CLIENT_GO" ]] || die "cannot read the k8s.io/client-go version from $GOMOD."
LDFLAGS="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
LDFLAGS+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in pkg/lint/rules pkg/chartutil; do
  LDFLAGS+=" -X helm.sh/helm/v3/$pkg.k8sVersionMajor=1 -X helm.sh/helm/v3/$pkg.k8sVersionMinor=$CLIENT_GO"
done
if ! GOBIN="$BIN" go install -trimpath -ldflags "$LDFLAGS" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"; then
  rm -f "$HELM"
  die "building helm $HELM_VERSION failed (see the Go output above).
  Check GOPROXY ($(go env GOPROXY)) and that helm.sh/helm/v3@$HELM_VERSION exists
  ('go list -m -versions helm.sh/helm/v3'); set PROCTOR_HELM_VERSION to another v3 release."
fi
"$HELM" version --short >/dev/null 2>&1 || die "the built helm at $HELM does not run."
log "built $("$HELM" version --short) in $(( $(date +%s) - start )) s: $HELM"
echo "$HELM"
