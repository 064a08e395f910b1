#!/usr/bin/env bash
# What a page of waiting jobs costs deep in a queue of a million on Redis, with the Redis engine of two commits side
# by side in one sitting (dev.sluice.bench.JobPagesCost, the working tree's driver): BASE's engine (built in a
# temporary git worktree, its sluice-core and sluice-redis classes first on the class path), then the working
# tree's, whose rows go on with pages by cursor at the same depths. Starts a private redis-server on a free port (no
# persistence), prints Markdown table rows, then stops it.
# Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-job-pages.sh BASE [--jobs 1000000] [--groups 100]
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:?usage: bench/run-job-pages.sh BASE [--jobs N] [--groups G] (BASE: the commit whose engine to compare with)}"
shift
jobs=1000000
groups=100
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --groups) groups="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --jobs N, --groups G)" >&2; exit 2 ;;
  esac
done

# shellcheck source=prepare.sh
source bench/prepare.sh
scratch="$(mktemp -d /tmp/sluice-job-pages.XXXXXX)"
git worktree prune
git worktree add --detach "$scratch/base" "$base" >/dev/null
(cd "$scratch/base" && MAVEN_ARGS="-B -q -ntp" ./mvnw -pl sluice-redis -am compile)
old="$scratch/base/sluice-core/target/classes:$scratch/base/sluice-redis/target/classes"

start_private_redis "$scratch"

echo "| engine | waiting jobs | groups | offset | page of 100, median of 15 |"
echo "|---|---|---|---|---|"
"$JAVA" -cp "$old:$JAR" dev.sluice.bench.JobPagesCost "redis://127.0.0.1:$port" "$jobs" "$groups" "$base" 2>/dev/null
"$JAVA" -cp "$JAR" dev.sluice.bench.JobPagesCost "redis://127.0.0.1:$port" "$jobs" "$groups" "working tree" cursor 2>/dev/null
git worktree remove --force "$scratch/base"
