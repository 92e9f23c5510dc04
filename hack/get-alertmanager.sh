#!/usr/bin/env bash
# Build Alertmanager from the Go module proxy into a cache outside the repository (once; reused).
#
# The notice tests send to a real Alertmanager and read the alerts back from its v2 API. This
# machine reaches only package registries, so the release tarballs are out; like helm
# (hack/get-helm.sh) it is built from its module with `go install mod@version`.
#
#   hack/get-alertmanager.sh            build Alertmanager if missing, print the binary's path
#   hack/get-alertmanager.sh --print    print the path only (no build)
#
# Environment: PROCTOR_ALERTMANAGER_VERSION (default below), PROCTOR_CACHE (default ~/.cache/proctor).
set -euo pipefail

AM_VERSION="${PROCTOR_ALERTMANAGER_VERSION:-v0.35.0}"
CACHE="${PROCTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proctor}"
BIN="$CACHE/alertmanager-$AM_VERSION/bin"
AM="$BIN/alertmanager"

if [[ "${1:-}" == "--print" ]]; then echo "$AM"; exit 0; fi
if [[ -x "$AM" ]]; then echo "$AM"; exit 0; fi

log() { echo "get-alertmanager: $*" >&2; }
die() { echo "get-alertmanager: error: $*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "Go is not installed or not on PATH.
  Alertmanager is built from its Go module (github.com/prometheus/alertmanager@$AM_VERSION).
  Install Go (https://go.dev/doc/install), or put an alertmanager binary at $AM."

export GOFLAGS="-mod=mod -buildvcs=false" CGO_ENABLED=0
mkdir -p "$BIN"
start=$(date +%s)
log "building Alertmanager $AM_VERSION with $(go env GOVERSION) (a few minutes, once)"
# a build cache of our own, removed afterwards (only the binary is kept)
export GOCACHE="$CACHE/alertmanager-$AM_VERSION/go-build"
trap 'rm -rf "$GOCACHE"' EXIT
MOD="github.com/prometheus/alertmanager@$AM_VERSION"
log "downloading $MOD and its dependencies from $(go env GOPROXY)"
if ! info="$(go mod download -json "$MOD" 2>&1)"; then
  die "the Go module proxy did not serve $MOD:
$info
  Set PROCTOR_ALERTMANAGER_VERSION to a release that
  'go list -m -versions github.com/prometheus/alertmanager' lists."
fi
LDFLAGS="-s -w -X github.com/prometheus/common/version.Version=${AM_VERSION#v}"
LDFLAGS+=" -X github.com/prometheus/common/version.Branch=HEAD"
# The module embeds its web UI's built assets (ui/app/dist), which its published module does not
# carry (they are built with npm at release time), so `go install mod@version` stops at the embed.
# Build from a copy of the module with a placeholder page there: the v2 API, all the tests use,
# is unaffected; only the browser UI is missing.
SRC="$CACHE/alertmanager-$AM_VERSION/src"
rm -rf "$SRC"
trap 'rm -rf "$GOCACHE" "$SRC"' EXIT
DIR="$(echo "$info" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
[[ -d "$DIR" ]] || die "cannot find the downloaded module's source (go mod download said: $info)"
cp -r "$DIR" "$SRC"
chmod -R u+w "$SRC"
for ui in elm mantine; do
  mkdir -p "$SRC/ui/app/dist/$ui"
  echo "<!doctype html><title>Alertmanager</title><p>Built by Proctor without its web UI; use the v2 API.</p>" \
    >"$SRC/ui/app/dist/$ui/index.html"
done
log "compiling cmd/alertmanager"
if ! (cd "$SRC" && go build -trimpath -ldflags "$LDFLAGS" -o "$AM" ./cmd/alertmanager); then
  rm -f "$AM"
  die "building Alertmanager $AM_VERSION failed (see the Go output above)."
fi
"$AM" --version >/dev/null 2>&1 || die "the built alertmanager at $AM does not run."
log "built $("$AM" --version 2>&1 | head -1) in $(( $(date +%s) - start )) s: $AM"
echo "$AM"
