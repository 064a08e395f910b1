#!/usr/bin/env bash
# Adaptive rates in simulation: every controller (Sluice's, static rates, an oracle, BullMQ's pause, the first seed's
# controller, Netflix AIMD and Gradient2, the AWS SDK's CUBIC bucket) against a simulated downstream whose capacity
# changes, on virtual time, 20 seeds each (the same seed gives the same trace). Writes bench/results/adaptive.json
# and bench/results/adaptive.md. Takes about a minute on 2 cores, build included; no Redis.
# Usage: bench/run-adaptive.sh [--seeds 20]
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=prepare.sh
source bench/prepare.sh

describe_measured sluice-core
# the rule's sources as measured (they may be uncommitted): one SHA-256 over them, in name order
engine="$(cat sluice-core/src/main/java/dev/sluice/internal/adaptive/*.java | sha256sum | cut -c1-16)"
"$JAVA" "-Dsluice.bench.commit=$commit" "-Dsluice.bench.measuredCommit=$measured_commit" \
  "-Dsluice.bench.dirty=$dirty" "-Dsluice.bench.engineSources=$engine" -cp "$JAR" dev.sluice.bench.adaptive.AdaptiveBench --out "$OUT" "$@"
