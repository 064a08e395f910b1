#!/usr/bin/env bash
# What a queue-wide rate costs Redis per job, with the queue library of two commits side by side in one sitting
# (dev.sluice.bench.QueueRateCost): the working tree's, and BASE's queue-*.lua files put first on the class path (a
# BASE from before the library was split has one queue.lua: it takes the place of the first file, queue-state.lua,
# and the working tree's other files are put there empty, so that the joined library is BASE's). Starts a
# private redis-server on a free port (no persistence), runs old, new, old, new, prints each round, then stops it.
# Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-queue-rate-cost.sh BASE [--n 20000]
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:?usage: bench/run-queue-rate-cost.sh BASE [--n 20000] (BASE: the commit whose queue library to compare with)}"
shift
n=20000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --n) n="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --n N)" >&2; exit 2 ;;
  esac
done

# shellcheck source=prepare.sh
source bench/prepare.sh
scratch="$(mktemp -d /tmp/sluice-rate-cost.XXXXXX)"
lua=dev/sluice/redis/internal
mkdir -p "$scratch/old/$lua"
for file in sluice-redis/src/main/resources/$lua/queue-*.lua; do
  name="$(basename "$file")"
  git show "$base:$file" >"$scratch/old/$lua/$name" 2>/dev/null || : >"$scratch/old/$lua/$name"
done
if git cat-file -e "$base:sluice-redis/src/main/resources/$lua/queue.lua" 2>/dev/null; then
  git show "$base:sluice-redis/src/main/resources/$lua/queue.lua" >"$scratch/old/$lua/queue-state.lua"
fi

start_private_redis "$scratch"

for _ in 1 2; do
  "$JAVA" -cp "$scratch/old:$JAR" dev.sluice.bench.QueueRateCost "redis://127.0.0.1:$port" "$n" "$base" 2>/dev/null
  "$JAVA" -cp "$JAR" dev.sluice.bench.QueueRateCost "redis://127.0.0.1:$port" "$n" "working tree" 2>/dev/null
done
