#!/usr/bin/env bash
# Build the local control plane (etcd, kube-apiserver, kube-controller-manager, kubectl)
# from Go modules, into a cache outside the repository.
#
# Why from modules: this machine has no Docker engine and reaches only package registries,
# so kind and release tarballs are out. The Go module proxy serves the real sources.
#
#   hack/build-k8s.sh            build what is missing, print the bin directory
#   hack/build-k8s.sh --print    print the bin directory only (no build)
#
# Environment: PROCTOR_K8S_VERSION, PROCTOR_ETCD_VERSION, PROCTOR_CACHE (default ~/.cache/proctor).
set -euo pipefail

K8S_VERSION="${PROCTOR_K8S_VERSION:-v1.34.4}"
ETCD_VERSION="${PROCTOR_ETCD_VERSION:-v3.6.5}"
CACHE="${PROCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor}"
BIN="$CACHE/k8s/$K8S_VERSION-etcd$ETCD_VERSION/bin"
SRC="$CACHE/k8s/src"

if [[ "${1:-}" == "--print" ]]; then echo "$BIN"; exit 0; fi

log() { echo "build-k8s: $*" >&2; }
die() { echo "build-k8s: error: $*" >&2; exit 1; }

have_all() {
  for b in etcd kube-apiserver kube-controller-manager kubectl; do
    [[ -x "$BIN/$b" ]] || return 1
  done
}
if have_all; then echo "$BIN"; exit 0; fi

command -v go >/dev/null 2>&1 || die "Go is not installed or not on PATH.
  The local control plane is built from Go modules. Install Go >= 1.24 (https://go.dev/doc/install,
  or 'apt-get install golang-go' where it is recent enough), or point KUBECONFIG at an existing
  cluster (kind, a real one) to skip the local control plane entirely."
GOV="$(go env GOVERSION)"; GOMINOR="$(echo "$GOV" | sed -E 's/^go1\.([0-9]+).*/\1/')"
(( GOMINOR >= 24 )) || die "Go $GOV is too old; kubernetes $K8S_VERSION needs Go >= 1.24."

export GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0 GOTOOLCHAIN=local
# A build cache of our own, removed once the binaries exist: a cold build leaves about 4 GB there
# that nothing reuses (the binaries are cached in $BIN; the module downloads stay in GOMODCACHE).
export GOCACHE="$CACHE/k8s/go-build"
trap 'rm -rf "$GOCACHE"' EXIT
mkdir -p "$BIN" "$SRC"
start=$(date +%s)
log "first build only: about 15-25 minutes on 2 cores and 5 GB of disk (kept: about 500 MB of binaries in $BIN, and Go's module cache)"

fetch() { # module@version -> prints the downloaded go.mod path
  local out
  if ! out="$(go mod download -json "$1" 2>&1)"; then
    die "the Go module proxy did not serve $1:
$out
  Check GOPROXY ($(go env GOPROXY)) and that $1 exists; set PROCTOR_K8S_VERSION / PROCTOR_ETCD_VERSION to another release."
  fi
  echo "$out" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p'
}

# --- etcd: a tiny wrapper module around etcdmain (the server module's own replace lines
#     point at sibling directories, so a plain `go install` of it cannot work).
if [[ ! -x "$BIN/etcd" ]]; then
  log "building etcd $ETCD_VERSION"
  d="$SRC/etcd-$ETCD_VERSION"; mkdir -p "$d"
  fetch "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null
  cat > "$d/go.mod" <<GOMOD
module proctor.dev/build/etcd

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
  cat > "$d/main.go" <<'GOMAIN'
// Command etcd is etcd's own server entry point, wrapped so it builds from the module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GOMAIN
  (cd "$d" && go mod tidy >/dev/null 2>&1 || true
   cd "$d" && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" .) \
    || die "building etcd $ETCD_VERSION failed (see the Go output above)."
fi

# --- kubernetes: a wrapper module requiring k8s.io/kubernetes, with one replace per staging
#     module, taken from that release's own go.mod (./staging/src/k8s.io/X => k8s.io/X v0.MINOR.PATCH).
if ! { [[ -x "$BIN/kube-apiserver" ]] && [[ -x "$BIN/kube-controller-manager" ]] && [[ -x "$BIN/kubectl" ]]; }; then
  log "building kubernetes $K8S_VERSION (kube-apiserver, kube-controller-manager, kubectl)"
  gomod="$(fetch "k8s.io/kubernetes@$K8S_VERSION")"
  [[ -f "$gomod" ]] || die "could not locate go.mod of k8s.io/kubernetes@$K8S_VERSION"
  staging_version="v0.${K8S_VERSION#v1.}"
  d="$SRC/kubernetes-$K8S_VERSION"; mkdir -p "$d"
  {
    echo "module proctor.dev/build/kubernetes"
    echo
    echo "go $(sed -n 's/^go //p' "$gomod")"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    grep -E '^\s*k8s\.io/[^ ]+ => \./staging/src/' "$gomod" \
      | awk -v v="$staging_version" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } > "$d/go.mod"
  n="$(grep -c '=> k8s.io/' "$d/go.mod")"
  (( n > 10 )) || die "found only $n staging modules in k8s.io/kubernetes@$K8S_VERSION go.mod"
  major="${K8S_VERSION#v}"; major="${major%%.*}"
  minor="${K8S_VERSION#v*.}"; minor="${minor%%.*}"
  now="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  ldflags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=$now -X $pkg.gitCommit=module-$K8S_VERSION"
  done
  (cd "$d" && go mod download k8s.io/kubernetes && \
    go build -trimpath -ldflags "$ldflags" -o "$BIN/" \
      k8s.io/kubernetes/cmd/kube-apiserver \
      k8s.io/kubernetes/cmd/kube-controller-manager \
      k8s.io/kubernetes/cmd/kubectl) \
    || die "building kubernetes $K8S_VERSION failed (see the Go output above)."
fi

have_all || die "build finished but binaries are missing in $BIN"
log "done in $(( $(date +%s) - start ))s; $(du -sh "$BIN" | cut -f1) in $BIN (the Go build cache is removed)"
echo "$BIN"
