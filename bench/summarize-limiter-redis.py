#!/usr/bin/env python3
"""Prints the Markdown tables of bench/results/README.md ("Limiter, on Redis") from one run of
bench/run-limiter-redis.sh.

Usage: bench/summarize-limiter-redis.py [results-dir]   (default: bench/results)
"""
import json
import sys
from pathlib import Path

results = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
doc = json.loads((results / "limiter-redis.json").read_text())
cases = doc["cases"]
ratios = doc["ratios"]
targets = doc["targets"]
work = doc["workload"]
env = doc["environment"]

CONTENDERS = [("sluice", "Sluice"), ("bucket4j", "Bucket4j (Lettuce)"), ("raw-evalsha", "raw EVALSHA"),
              ("floor", "floor: raw read-modify-write")]
SETS = [("hot", "1 hot key"), ("keys10k", f"{work['manyKeys']:,} keys")]


def k(value):
    """Decisions per second in thousands, e.g. 123.4k."""
    return "n/a" if value is None else f"{value / 1000:,.1f}k"


def case(contender, key_set, n):
    return cases.get(f"{contender}.{key_set}.c{n}")


def groups():
    for key_set, label in SETS:
        for n in work["inFlight"]:
            yield key_set, label, n


def yes_no(met):
    return "**met**" if met else "**missed**"


def ratio_cell(group, name):
    r = ratios.get(group, {})
    if name not in r:
        return "n/a"
    return f"**{r[name]:.2f}x** ({r[name + 'PairedMedian']:.2f}x)"


jvm_args = " ".join(a for a in env["jdk"]["jvmArgs"] if not a.startswith("-Dsluice.bench."))
print(f"Run: {doc['date']}, commit `{doc['commit']}` (uncommitted changes in sluice-core, sluice-redis: "
      f"{doc['uncommittedChanges']}; Redis engine sources SHA-256 `{doc.get('engineSourcesSha256', 'unknown')}`), JDK {env['jdk']['version']} ({env['jdk']['vendor']}) {jvm_args}; "
      f"Redis {env['redis']['version']} ({env['redis']['mallocator']}, private server), Lettuce "
      f"{env['libraries']['lettuce']}, Bucket4j {env['libraries']['bucket4j']}; "
      f"{env['machine']['availableProcessors']} vCPUs ({env['machine']['cpu']}), shared with the benchmark's "
      f"own JVM; {work['warmupRounds']} warm-up + {work['measuredRounds']} measured rounds of "
      f"{work['secondsPerCase']:g} s per case; {doc['wallSeconds']} s. Load before: "
      f"`{env['machine']['loadBefore']}`; after: `{env['machine']['loadAfter']}`.\n")

print("### Decisions per second\n")
print("| keys | in flight | " + " | ".join(label for _, label in CONTENDERS)
      + " | Sluice / raw EVALSHA | Sluice / floor | Sluice / Bucket4j |")
print("|---|---:|" + "---:|" * len(CONTENDERS) + "---:|---:|---:|")
for key_set, label, n in groups():
    cells = []
    for contender, _ in CONTENDERS:
        c = case(contender, key_set, n)
        cells.append("n/a" if c is None else
                     f"{k(c['medianDecisionsPerSecond'])} ({k(c['minDecisionsPerSecond'])} to "
                     f"{k(c['maxDecisionsPerSecond'])})")
    group = f"{key_set}.c{n}"
    cells.append(ratio_cell(group, "sluiceOverRaw"))
    cells.append(ratio_cell(group, "sluiceOverFloor"))
    cells.append(ratio_cell(group, "sluiceOverBucket4j"))
    print(f"| {label} | {n} | " + " | ".join(cells) + " |")
print()
print("Cells: median decisions/s over the measured rounds (min to max). Ratios: of the medians, and in brackets "
      "the median of the round-by-round ratios (measured seconds apart in the same round). Raw EVALSHA, the "
      "ceiling: `EVALSHA` of `return 1`, one round trip with nothing to compute. Floor, raw read-modify-write: "
      "`EVALSHA` of a script doing `TIME` + `GET` + `SET ... PX` and computing nothing, the least a limiter that "
      "keeps its state in Redis and takes its time from Redis must do; sent exactly as the ceiling is.\n")

print("### Round trips and CPU per decision (medians over the rounds)\n")
print("| contender | keys | in flight | round trips per decision | commands per decision | Redis CPU µs "
      "| Redis CPUs busy | JVM CPU µs | JVM bytes allocated | granted |")
print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
for key_set, label, n in groups():
    for contender, name in CONTENDERS:
        c = case(contender, key_set, n)
        if c is None:
            continue
        commands = ", ".join(f"{t} {v:.2f}" for t, v in c["commandsPerDecision"].items())
        errors = f"; {c['errors']} errors" if c["errors"] else ""
        print(f"| {name} | {label} | {n} | {c['roundTripsPerDecision']:.3f} | {commands} "
              f"| {c['medianRedisCpuMicrosPerDecision']:.2f} | {c['medianRedisCpusBusy']:.2f} "
              f"| {c['medianClientCpuMicrosPerDecision']:.1f} | {c['medianClientAllocatedBytesPerDecision']:,.0f} "
              f"| {c['grantedFraction'] * 100:.2f}%{errors} |")
print()
print("Round trips: commands the contender's Lettuce client sent (a `CommandListener`), over decisions, all "
      "measured rounds together. Redis CPU: `INFO cpu` `used_cpu_sys + used_cpu_user` before and after each case, "
      "over its decisions; 'busy' is that over the wall time. JVM CPU: the benchmark process (callers, Lettuce's "
      f"event loop, JIT, GC: {env['jdk']['cpuTimeSource']}).\n")

memory = doc.get("memory", {}).get("rows", {})
if memory:
    print(f"### Redis memory per limiter key ({doc['memory']['limiterKeysPerPolicy']:,} keys per policy)\n")
    print("| library | policy | state held | Redis keys per limiter key | `MEMORY USAGE` bytes per key "
          "| `used_memory` growth per key |")
    print("|---|---|---|---|---:|---:|")
    for row in memory.values():
        per_key = ", ".join(f"{count / row['limiterKeys']:g} {t}" for t, count in row["redisKeysByType"].items())
        print(f"| {row['library']} | `{row['policy']}` | {row['held']} | {per_key} "
              f"| {row['memoryUsageBytesPerLimiterKey']:,.1f} | {row['usedMemoryDeltaPerLimiterKey']:,.1f} |")
    print()
    sample = next(iter(memory.values()))
    print(f"Keys are named like `{sample['sampleKey']}`. `MEMORY USAGE key SAMPLES 0`: the key's name, value and "
          "entry in the keyspace, summed over every Redis key of a limiter key. `used_memory` growth: the server's "
          "whole allocation before and after filling, over the keys (also counts the expiry entries and hash-table "
          "growth).\n")

print("### Against the targets\n")
print("| target | result |")
print("|---|---|")
if "oneRoundTripPerDecision" in targets:
    t = targets["oneRoundTripPerDecision"]
    print(f"| exactly one round trip per decision | {yes_no(t['met'])}: "
          + "; ".join(f"{case_id}: {text}" for case_id, text in t["cases"].items()) + " |")
if "ceiling" in targets:
    t = targets["ceiling"]
    print(f"| ≥ 0.8x the raw-EVALSHA ceiling, every case | {yes_no(t['met'])}: " + "; ".join(t["cases"]) + " |")
if "bucket4jHotKey" in targets:
    t = targets["bucket4jHotKey"]
    print(f"| ≥ 2x Bucket4j's Lettuce backend on the hot key | {yes_no(t['met'])}: " + "; ".join(t["cases"]) + " |")
floor = [f"{group}: {r['sluiceOverFloor']:.3f} (per round {r['sluiceOverFloorPairedMedian']:.3f})"
         for group, r in ratios.items() if "sluiceOverFloor" in r]
if floor:
    print("| context, not a target: Sluice / floor (raw read-modify-write: TIME + GET + SET PX, nothing computed) "
          "| " + "; ".join(floor) + " |")
