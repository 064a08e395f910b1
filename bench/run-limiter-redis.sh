#!/usr/bin/env bash
# Sluice's Redis rate limiter against Bucket4j's Lettuce backend (same rate) and a raw EVALSHA of 'return 1' (the
# ceiling: one round trip with nothing to compute), with, for context, the floor: raw read-modify-write, an EVALSHA
# of TIME + GET + SET PX that computes nothing (the least a limiter keeping its state and taking its time in Redis
# must do), sent as the ceiling is. On one private redis-server started for the run (never the shared
# 127.0.0.1:6379): one hot key and 10,000 keys, 1 and 64 requests in flight; 1 warm-up and 7 measured
# rounds of 2 s per case, contenders interleaved. Then Redis memory per limiter key for each policy.
# Writes bench/results/limiter-redis.json (every sample, medians, ratios, round trips, Redis CPU, memory, targets)
# and prints the Markdown tables of bench/results/README.md. Takes about 5 to 6 minutes on 2 cores, build included.
# Usage: bench/run-limiter-redis.sh [RedisLimiterBench options, e.g. --rounds 3 --seconds 1 --only raw,floor]
# (a later --out replaces the default one; the tables printed at the end are still those of bench/results)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=prepare.sh
source bench/prepare.sh

describe_measured sluice-core sluice-redis
engine="$(redis_engine_sources)"

# The bench jar holds sluice-bench's runtime classpath as just built (the Sluice modules from this tree, Lettuce,
# Bucket4j, the test kit's RedisServer). Fixed heap, touched up front.
"$JAVA" -Xms2g -Xmx2g -XX:+AlwaysPreTouch \
  "-Dsluice.bench.commit=$commit" "-Dsluice.bench.measuredCommit=$measured_commit" \
  "-Dsluice.bench.dirty=$dirty" "-Dsluice.bench.engineSources=$engine" \
  -cp "$JAR" dev.sluice.bench.RedisLimiterBench --out "$OUT/limiter-redis.json" "$@"

if command -v python3 >/dev/null 2>&1; then
  echo
  python3 bench/summarize-limiter-redis.py "$OUT"
fi
