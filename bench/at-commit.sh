#!/usr/bin/env bash
# Runs the benchmark of an earlier commit, as that commit has it, for a comparison by scenario name with a run
# of this checkout (scenarios keep their names from one commit to the next).
#
#   bench/at-commit.sh <commit> [bench options...]
#   bench/at-commit.sh b6f1977 --only postgres
#   npm run bench -- --only postgres          # this checkout, same options, right before or after
#
# The commit's tree is exported with `git archive` into a temporary directory: the repository, its worktrees and
# their indexes are left alone. It runs with this checkout's node_modules (the commit's package.json must
# want the same packages), and its results JSON is copied to $TMPDIR, never over bench/results/latest.json.
set -euo pipefail

commit=${1:?usage: bench/at-commit.sh <commit> [bench options...]}
shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=${TMPDIR:-/tmp}
sha=$(git -C "$repo" rev-parse --short "$commit^{commit}")
if ! git -C "$repo" diff --quiet "$sha" HEAD -- package.json package-lock.json; then
  echo "warning: $sha's package.json or package-lock.json differ from HEAD's; it runs with HEAD's node_modules" >&2
fi

dir=$(mktemp -d "$tmp/connect-bench-at-$sha-XXXXXX")
trap 'rm -rf "$dir"' EXIT
git -C "$repo" archive "$sha" | tar -x -C "$dir"
ln -s "$(readlink -f "$repo/node_modules")" "$dir/node_modules"

(cd "$dir" && npm run bench -- "$@")

# A profiled run keeps its results with its profiles (printed above).
[ -f "$dir/bench/results/latest.json" ] || exit 0
# The export is not a git checkout, so the run could not tell its commit: it is written in here.
out="$tmp/connect-bench-at-$sha-$(date -u +%Y%m%dT%H%M%SZ).json"
node -e '
  const fs = require("node:fs");
  const [from, to, sha] = process.argv.slice(1);
  const report = JSON.parse(fs.readFileSync(from, "utf8"));
  report.service = `${sha} (exported with git archive by bench/at-commit.sh)`;
  fs.writeFileSync(to, `${JSON.stringify(report, null, 2)}\n`);
' "$dir/bench/results/latest.json" "$out" "$sha"
echo "Service at $sha (the table above says unknown: the export has no .git). Results of that commit: $out"
