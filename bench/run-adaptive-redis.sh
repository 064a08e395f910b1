#!/usr/bin/env bash
# Adaptive rates with real processes on Redis: three worker JVMs against a local HTTP downstream whose capacity
# falls and comes back, one of them killed with SIGKILL mid-run (dev.sluice.bench.adaptive.live.LiveRun). Starts a
# private redis-server; writes bench/results/adaptive-redis.json and adaptive-redis.md. About a minute.
# Usage: bench/run-adaptive-redis.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=prepare.sh
source bench/prepare.sh

start_private_redis "$(mktemp -d)"
"$JAVA" -cp "$JAR" dev.sluice.bench.adaptive.live.LiveRun "redis://127.0.0.1:$port" "$OUT"
