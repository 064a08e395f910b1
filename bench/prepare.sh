# Sourced by the bench/run-*.sh scripts, from the repository root: finds a JDK 21+ (JAVA), builds the
# benchmarks jar (JAR) and makes the results folder (OUT).
# shellcheck shell=bash

# shellcheck source=../scripts/use-jdk21.sh
source scripts/use-jdk21.sh
JAVA="$JAVA_HOME/bin/java"
echo "JDK: $JAVA_HOME ($("$JAVA" -version 2>&1 | head -1))"

MAVEN_ARGS="${MAVEN_ARGS:-} -B -q -ntp" ./mvnw -pl sluice-bench -am package -DskipTests
JAR=sluice-bench/target/benchmarks.jar
OUT=bench/results
mkdir -p "$OUT"
