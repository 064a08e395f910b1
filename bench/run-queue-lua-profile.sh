#!/usr/bin/env bash
# Where a queue call's Lua time goes: the working tree's queue-*.lua files, with bench/queue-lua-profile.patch
# applied in a scratch folder (it adds TIME readings around the sections of a call and a 'prof' command that
# replies their sums), put first on the class path of RedisQueueProbe, which adds 20,000 jobs and runs them through
# a worker at one concurrency (every completed job kept, unless --keep-none). Prints FCALL's microseconds per call
# (INFO commandstats)
# and each section's microseconds per call. Each reading costs about 0.5 us, so sections read high and their sum
# exceeds the FCALL figure; compare sections with each other, or a change with its base in one sitting. The patch
# follows today's layout: a change of the files it touches may need it updated. Starts a private redis-server on
# a free port (no persistence) and stops it. Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-queue-lua-profile.sh [--concurrency 1] [--jobs 20000] [--listener] [--keep-none]
#   (--listener: a listener that does nothing listens to the queue, so that every call also writes its events;
#   --keep-none: no completed job is kept, so the queue claims and completes without writing records)
set -euo pipefail
cd "$(dirname "$0")/.."

concurrency=1
jobs=20000
listener=""
keep_none=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --concurrency) concurrency="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --listener) listener="--listener"; shift ;;
    --keep-none) keep_none=true; shift ;;
    *) echo "unknown argument $1 (options: --concurrency N, --jobs N, --listener, --keep-none)" >&2; exit 2 ;;
  esac
done

# shellcheck source=prepare.sh
source bench/prepare.sh
scratch="$(mktemp -d /tmp/sluice-lua-profile.XXXXXX)"
lua=dev/sluice/redis/internal
mkdir -p "$scratch/cp/$lua"
cp sluice-redis/src/main/resources/$lua/queue-*.lua "$scratch/cp/$lua/"
git apply --unsafe-paths --directory="$scratch/cp/$lua" bench/queue-lua-profile.patch

start_private_redis "$scratch"

"$JAVA" "-Dsluice.probe.concurrency=$concurrency" "-Dsluice.probe.jobs=$jobs" "-Dsluice.probe.keepNone=$keep_none" -cp "$scratch/cp:$JAR" \
  dev.sluice.bench.RedisQueueProbe "redis://127.0.0.1:$port" $listener 2>/dev/null | grep -v '^SLF4J' || true
calls="$(redis-cli -p "$port" info commandstats | sed -n 's/^cmdstat_fcall:calls=\([0-9]*\),.*usec_per_call=\([0-9.]*\).*/\1 \2/p')"
echo "FCALL: ${calls#* } us per call over ${calls%% *} calls (the adds' calls, one per 500 jobs, included)"
# any function of the library runs 'prof' (the patch answers it before the command): its 'get'
function="$(redis-cli -p "$port" function list | sed -n 's/.*\(sluice_queue_[0-9a-f]*\).*/\1/p' | head -1)_get"
redis-cli -p "$port" fcall "$function" 1 profile prof '' | paste - - \
  | awk -v n="${calls%% *}" '$1 == "calls" { next } { printf "%-20s %8.2f us per call\n", $1, $2 / n }' | sort -k2 -g -r
