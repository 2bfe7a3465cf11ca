#!/usr/bin/env bash
# How long the operator CLI takes: --help, then each read-only verb beside a running server (sent to its
# operator API), then the same verbs on the embedded database with no server (run in the CLI's process).
#
#   bench/cli-latency.sh [runs] [checkout]    # default: 5 runs of each, this checkout (built: npm run build)
#
# Prints the median wall-clock and CPU (user + system) seconds of each. The machine may be shared: the load
# average is printed first, and the CPU seconds say more than the wall-clock ones when it is busy.
set -euo pipefail

runs=${1:-5}
checkout=$(cd "${2:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
data=$(mktemp -d "${TMPDIR:-/tmp}/connect-cli-latency-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$data"
}
trap cleanup EXIT
export CONNECT_DATA_DIR=$data DATABASE_URL=

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
# Median wall-clock and CPU seconds of `runs` runs of a command, its output discarded.
measure() {
  local label=$1 i wall user sys walls=() cpus=()
  shift
  for ((i = 0; i < runs; i++)); do
    read -r wall user sys < <({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1)
    walls+=("$wall")
    cpus+=("$(printf '%.3f' "$(echo "$user + $sys" | bc)")")
  done
  printf '%-44s wall %6.2f s  CPU %5.2f s\n' "$label" "$(median "${walls[@]}")" "$(median "${cpus[@]}")"
}

cli=("node" "$checkout/bin/connect-payments.js")
echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $runs runs each, checkout $checkout"
measure 'node -e 0 (for scale)' node -e 0
measure '--help' "${cli[@]}" --help

(cd "$checkout" && PORT=0 exec node dist/main.js) >"$data/server.log" 2>&1 &
server=$!
until grep -q 'Try it:' "$data/server.log"; do
  kill -0 "$server" 2>/dev/null || { cat "$data/server.log"; exit 1; }
  sleep 0.1
done
org=$(grep -o 'Demo organization [0-9a-f-]*' "$data/server.log" | awk '{print $3}')
verbs=('org list' 'org get <org>' 'key list <org>' 'webhook list <org>' 'ledger verify' 'deposits quarantined' 'payouts list')
for verb in "${verbs[@]}"; do
  # shellcheck disable=SC2086 # a verb is several words
  measure "$verb (through the server)" "${cli[@]}" ${verb/<org>/$org}
done
measure "npx connect-payments org list (server)" bash -c "cd '$checkout' && npx connect-payments org list"
measure 'admin-token' "${cli[@]}" admin-token

kill "$server" && wait "$server" 2>/dev/null || true
server=
for verb in "${verbs[@]}"; do
  # shellcheck disable=SC2086
  measure "$verb (embedded, no server)" "${cli[@]}" ${verb/<org>/$org}
done
