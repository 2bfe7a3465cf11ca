#!/usr/bin/env bash
# The newcomer's path, timed: a fresh clone of this commit, `npm ci`, `npm start` until the banner, then the
# README's first simulated payment (create an intent, simulate the deposit, see it completed) with curl.
#
#   bench/newcomer.sh                # prints the seconds of each phase and the totals
#   bench/newcomer.sh --omit=dev     # the same with these options to npm ci (only what the service needs)
#   COMMIT=ab7118f bench/newcomer.sh # an earlier commit, for a before/after comparison
#
# The clone is made from this repository (committed work only) into a temporary directory, removed at the end.
# npm downloads from its cache when it can, so a first run on a machine with an empty cache takes longer.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=$(git -C "$repo" rev-parse "${COMMIT:-HEAD}^{commit}")
dir=$(mktemp -d "${TMPDIR:-/tmp}/connect-newcomer-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

now() { date +%s.%N; }
seconds() { printf '%.1f' "$(echo "$2 - $1" | bc)"; }
# One field of a JSON answer read on stdin, by a dotted path.
# On a shared machine the wall-clock seconds say little: the CPU seconds (user + system) each phase used are
# printed beside them. Those of a running process and its descendants, from /proc (comm may hold spaces).
cpu() {
  local ticks child
  ticks=$(sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}')
  for child in $(pgrep -P "$1"); do ticks=$((ticks + $(cpu "$child"))); done
  echo "$ticks"
}
field() { node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(process.argv[1].split(".").reduce((v,k)=>v[k],JSON.parse(s))))' "$1"; }

echo "commit $commit, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version), npm $(npm --version)"
t0=$(now)
git clone --quiet --no-checkout "$repo" "$dir/connect-payments"
cd "$dir/connect-payments"
git checkout --quiet --detach "$commit"
t1=$(now)
TIMEFORMAT='%U + %S'
{ time npm ci --no-audit --no-fund "$@" >"$dir/npm-ci.log" 2>&1 || { cat "$dir/npm-ci.log"; exit 1; }; } 2>"$dir/npm-ci.cpu"
t2=$(now)
ci_cpu=$(bc <"$dir/npm-ci.cpu")
echo "node_modules: $(du -sm node_modules | cut -f1) MB"

# PORT=0: a free port, which the banner names.
PORT=0 npm start >"$dir/start.log" 2>&1 &
server=$!
until grep -q 'Try it:' "$dir/start.log"; do
  kill -0 "$server" 2>/dev/null || { cat "$dir/start.log"; exit 1; }
  sleep 0.05
done
t3=$(now)
start_cpu=$(echo "$(cpu "$server") / $(getconf CLK_TCK)" | bc -l)

key=$(grep -o 'sk_test_[A-Za-z0-9_-]*' "$dir/start.log" | head -1)
api=$(grep -o 'API base URL: *[^ ]*' "$dir/start.log" | awk '{print $NF}')
auth="Authorization: Bearer $key"
id=$(curl -sf -X POST "$api/payment-intents" -H "$auth" \
  -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid)" -H 'Content-Type: application/json' \
  -d '{"amount":"25.00","currencies":["USDC","USDT"],"external_ref":"user-42"}' | field id)
curl -sf -X POST "$api/test/payment-intents/$id/simulate-deposit" -H "$auth" >/dev/null
status=$(curl -sf "$api/payment-intents/$id" -H "$auth" | field status)
t4=$(now)
[ "$status" = completed ] || { echo "the intent is $status, not completed"; exit 1; }

phase() { printf '%-24s %5s s%s\n' "$1" "$(seconds "$2" "$3")" "${4:+$(printf ' (CPU %.1f s)' "$4")}"; }
phase clone "$t0" "$t1"
phase "npm ci $*" "$t1" "$t2" "$ci_cpu"
phase "npm start to banner" "$t2" "$t3" "$start_cpu"
phase "first payment (curl)" "$t3" "$t4"
phase "clone → ready" "$t0" "$t3"
phase "clone → completed" "$t0" "$t4"
