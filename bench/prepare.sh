# Sourced by the bench/run-*.sh scripts, from the repository root: finds a JDK 21+ (JAVA), builds the
# benchmarks jar (JAR) and makes the results folder (OUT).
# shellcheck shell=bash

# shellcheck source=../scripts/use-jdk21.sh
source scripts/use-jdk21.sh
JAVA="$JAVA_HOME/bin/java"
echo "JDK: $JAVA_HOME ($("$JAVA" -version 2>&1 | head -1))"

# BENCH_MODULE: the module to build (sluice-bench unless the script names another; it then sets JAR itself)
MAVEN_ARGS="${MAVEN_ARGS:-} -B -q -ntp" ./mvnw -pl "${BENCH_MODULE:-sluice-bench}" -am package -DskipTests
JAR=sluice-bench/target/benchmarks.jar
OUT=bench/results
mkdir -p "$OUT"

# What was measured: sets `commit` (HEAD, short), `measured_commit` (the last commit that changed the folders given,
# the code measured) and `dirty` (whether those folders differ from HEAD; read-only git).
describe_measured() {
  local status changed folders
  folders="$(printf '%s, ' "$@")"
  folders="${folders%, }"
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  measured_commit="$(git log -1 --format=%h -- "$@" 2>/dev/null || true)"
  measured_commit="${measured_commit:-unknown}"
  if status="$(git --no-optional-locks status --porcelain -- "$@" 2>/dev/null)"; then
    changed="$(grep -c . <<<"$status" || true)"
    dirty="no"
    if [[ "$changed" != "0" ]]; then
      dirty="yes: $changed changed or new files under $folders"
    fi
  else
    dirty="unknown"
  fi
}

# The Redis engine's sources as measured (they may be uncommitted): one SHA-256 over them, in name order.
redis_engine_sources() {
  find sluice-redis/src/main -type f \( -name '*.java' -o -name '*.lua' \) -print0 2>/dev/null \
    | LC_ALL=C sort -z | xargs -0 cat 2>/dev/null | sha256sum | cut -c1-16 || echo unknown
}

# start_private_redis: see private-redis.sh
# shellcheck source=private-redis.sh
source bench/private-redis.sh
