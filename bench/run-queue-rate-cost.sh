#!/usr/bin/env bash
# What rates cost Redis per job, with the Redis engine of two commits side by side in one sitting
# (dev.sluice.bench.QueueRateCost, the working tree's driver): the working tree's engine, and BASE's, built in a
# temporary git worktree, its sluice-core and sluice-redis classes put first on the class path. Starts a private
# redis-server on a free port (no persistence), runs old, new, old, new, prints each round, then stops it.
# Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-queue-rate-cost.sh BASE [--n 20000] [--concurrency 100]
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:?usage: bench/run-queue-rate-cost.sh BASE [--n 20000] [--concurrency 100] (BASE: the commit whose engine to compare with)}"
shift
n=20000
concurrency=100
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --n N, --concurrency C)" >&2; exit 2 ;;
  esac
done

# shellcheck source=prepare.sh
source bench/prepare.sh
scratch="$(mktemp -d /tmp/sluice-rate-cost.XXXXXX)"
git worktree prune
git worktree add --detach "$scratch/base" "$base" >/dev/null
(cd "$scratch/base" && MAVEN_ARGS="-B -q -ntp" ./mvnw -pl sluice-redis -am compile)
old="$scratch/base/sluice-core/target/classes:$scratch/base/sluice-redis/target/classes"

start_private_redis "$scratch"

for _ in 1 2; do
  "$JAVA" -cp "$old:$JAR" dev.sluice.bench.QueueRateCost "redis://127.0.0.1:$port" "$n" "$base" "$concurrency" 2>/dev/null
  "$JAVA" -cp "$JAR" dev.sluice.bench.QueueRateCost "redis://127.0.0.1:$port" "$n" "working tree" "$concurrency" \
    2>/dev/null
done
git worktree remove --force "$scratch/base"
