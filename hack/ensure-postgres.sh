#!/usr/bin/env bash
# PostgreSQL's server binaries for the store's tests (initdb/pg_ctl from Debian's postgresql).
# The test fixtures start their own server in a temp dir on a free port; nothing runs as a service.
# Prints the bin directory. Installs the package with apt-get where it is missing (as root).
set -euo pipefail
find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }
bin="$(find_bin || true)"
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
  if [[ "$(id -u)" != 0 ]]; then
    echo "PostgreSQL server binaries not found: run 'sudo apt-get install postgresql' (or as root: make test)" >&2
    exit 1
  fi
  echo "installing PostgreSQL (Debian's postgresql) for the store's tests..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # policy-rc.d 101: the package must not start its own service (the tests start their own servers)
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  fi
  apt-get install -y -qq --no-install-recommends postgresql >&2
  bin="$(find_bin)"
fi
echo "$bin"
