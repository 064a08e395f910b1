#!/usr/bin/env bash
# Sluice's Redis queue side by side with BullMQ 6.7.0 on the workloads of ../shared/bench/ (scenarios A-E), and
# Sluice alone on F (a listener, kept jobs and 10 rate-limited groups: BullMQ has groups only in its Pro edition),
# against one private redis-server in one sitting. Starts redis-server on a free port (6390 if free: no persistence, no
# AOF), copies the BullMQ harness (/work/shared/bench/bullmq, read-only) to a scratch folder under /tmp, applies
# bench/bullmq-redis-cpu.patch there (it only adds INFO cpu and node's process.cpuUsage() reads around the harness's
# measured phases, outside its clocks), installs its pinned packages (npm ci), builds the bench jar, then for each scenario runs the BullMQ
# harness (--runs R in one node process, after --warmup W runs it discards) and Sluice's mirror, QueueRedisBench
# (the same in one JVM: both compilers warm before the measured runs), the order of
# the two alternating from scenario to scenario. Writes bench/results/queue-redis.json (every run of both, medians,
# ratios, targets) and the tables of bench/results/README.md (between its queue-redis markers), and prints them.
# Stops the private Redis and removes the scratch folder at the end, whatever happens.
# Takes about 7 minutes on 2 cores, build and npm install included. Heavy: run it alone (flock /tmp/sluice-build.lock ...).
#
# Usage: bench/run-queue-redis.sh [--runs 3] [--warmup 1] [--scenarios A,B,C,D,E,F] [--n 20000] [--results bench/results]
#   (a smaller --n or --runs is for a quick look; give it another --results folder to keep the committed results)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
warmup=1
scenarios="A,B,C,D,E,F"
n=20000
results=bench/results
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --scenarios) scenarios="$2"; shift 2 ;;
    --n) n="$2"; shift 2 ;;
    --results) results="$2"; shift 2 ;;
    *) echo "unknown argument $1 (options: --runs R --warmup W --scenarios A,B,C,D,E,F --n N --results DIR)" >&2; exit 2 ;;
  esac
done

HARNESS=${BULLMQ_HARNESS:-/work/shared/bench/bullmq}
# The harness this script was written against; another version may measure something else.
HARNESS_SHA256=3555d276ff8e415a92106c0709555a5d5ad1452df228b696f72be23228dea917
if [[ "$(sha256sum "$HARNESS/bench.mjs" | cut -d' ' -f1)" != "$HARNESS_SHA256" ]]; then
  echo "$HARNESS/bench.mjs is not the version bench/bullmq-redis-cpu.patch was made for" >&2
  exit 1
fi
for tool in redis-server redis-cli node npm python3 patch; do
  command -v "$tool" >/dev/null || { echo "$tool is not on the PATH" >&2; exit 1; }
done

scratch="$(mktemp -d /tmp/sluice-queue-redis.XXXXXX)"
redis_pid=""
port=""
cleanup() {
  if [[ -n "$redis_pid" ]] && kill -0 "$redis_pid" 2>/dev/null; then
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$redis_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$redis_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$redis_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

began=$(date +%s)

# shellcheck source=prepare.sh
source bench/prepare.sh
describe_measured sluice-core sluice-redis
engine="$(redis_engine_sources)"

# The BullMQ harness, patched in the scratch copy only.
cp "$HARNESS/bench.mjs" "$HARNESS/package.json" "$HARNESS/package-lock.json" "$scratch/"
patch -s -d "$scratch" -p1 <bench/bullmq-redis-cpu.patch
(cd "$scratch" && npm ci --no-audit --no-fund --loglevel=error >"$scratch/npm.log" 2>&1) \
  || { cat "$scratch/npm.log" >&2; exit 1; }

# A private Redis on the first free port from 6390.
port=6390
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
  --dir "$scratch" --logfile "$scratch/redis.log" &
redis_pid=$!
for _ in $(seq 100); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  kill -0 "$redis_pid" 2>/dev/null || { cat "$scratch/redis.log" >&2; exit 1; }
  sleep 0.1
done
echo "Redis: $(redis-server --version) on port $port (pid $redis_pid); BullMQ harness in $scratch"

run_bullmq() {
  (cd "$scratch" && node bench.mjs --scenarios "$1" --runs "$runs" --warmup "$warmup" --port "$port" --n "$n" --verbose) \
    >>"$scratch/bullmq.jsonl"
}
run_sluice() {
  "$JAVA" -Xms1g -Xmx1g -XX:+AlwaysPreTouch \
    "-Dsluice.bench.commit=$commit" "-Dsluice.bench.measuredCommit=$measured_commit" \
    "-Dsluice.bench.dirty=$dirty" "-Dsluice.bench.engineSources=$engine" \
    -cp "$JAR" dev.sluice.bench.QueueRedisBench --redis "redis://127.0.0.1:$port" \
    --scenarios "$1" --runs "$runs" --warmup "$warmup" --n "$n" --out "$scratch/sluice-$1.json" 2> >(grep -v '^SLF4J' >&2)
}
# After each harness's runs Redis must be empty again (keys with a time to live get 3 s to expire: BullMQ's
# obliterate leaves its limiter key to its PEXPIRE).
check_empty() {
  local keys
  for _ in $(seq 30); do
    keys="$(redis-cli -p "$port" dbsize)"
    [[ "$keys" == "0" ]] && return 0
    sleep 0.1
  done
  echo "Redis holds $keys keys after $1: $(redis-cli -p "$port" --scan | head -5 | tr '\n' ' ')" >&2
  exit 1
}

order=()
i=0
IFS=',' read -ra chosen <<<"$scenarios"
for scenario in "${chosen[@]}"; do
  if [[ "$scenario" == "F" ]]; then # Sluice's own: the harness has no such case
    run_sluice "$scenario"; check_empty "Sluice $scenario"
    order+=("$scenario:sluice")
    continue
  fi
  if (( i % 2 == 0 )); then
    run_bullmq "$scenario"; check_empty "BullMQ $scenario"
    run_sluice "$scenario"; check_empty "Sluice $scenario"
    order+=("$scenario:bullmq,sluice")
  else
    run_sluice "$scenario"; check_empty "Sluice $scenario"
    run_bullmq "$scenario"; check_empty "BullMQ $scenario"
    order+=("$scenario:sluice,bullmq")
  fi
  i=$((i + 1))
done

# The floors of the layout's commands in the same sitting (their own private Redis): what the lifecycle targets
# are measured against.
bench/run-queue-floors.sh --json "$scratch/floors.json" >&2

mkdir -p "$results"
python3 bench/summarize-queue-redis.py \
  --bullmq "$scratch/bullmq.jsonl" --sluice "$scratch"/sluice-*.json --floors "$scratch/floors.json" \
  --order "$(IFS=';'; echo "${order[*]}")" --wall-seconds "$(( $(date +%s) - began ))" \
  --redis "$(redis-server --version)" --results "$results"
