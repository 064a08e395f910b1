#!/usr/bin/env python3
"""Prints the Markdown tables of bench/results/README.md from one run of bench/run-limiter-local.sh.

Usage: bench/summarize-limiter-local.py [results-dir]   (default: bench/results)
"""
import json
import sys
from pathlib import Path

results = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
runs = json.loads((results / "limiter-local.json").read_text())
memory = json.loads((results / "limiter-local-memory.json").read_text())

LIBRARIES = [
    ("sluice", "Sluice"),
    ("sluice-lookup", "Sluice, key looked up on every call"),
    ("bucket4j", "Bucket4j (lock-free)"),
    ("resilience4j", "Resilience4j"),
    ("guava", "Guava"),
]
SCENARIOS = [
    ("oneKey_1thread", "One key, 1 thread"),
    ("oneKey_2threads", "One key, 2 threads"),
    ("keys100k_1thread", "100,000 keys, 1 thread"),
    ("keys100k_2threads", "100,000 keys, 2 threads"),
]


def score(run):
    metric = run["primaryMetric"]
    return metric["score"], metric["scoreError"]


def alloc(run):
    norm = run.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
    return norm["score"] if norm else float("nan")


def find(name, library=None, regime=None):
    for run in runs:
        params = run.get("params", {})
        if run["benchmark"].endswith(name) and params.get("library", library) == library \
                and params.get("regime", regime) == regime:
            return run
    return None


def fmt_bytes(value):
    return "0" if value < 0.5 else f"{value:.0f}"


for method, title in SCENARIOS:
    print(f"### {title} (`{method}`)\n")
    print("| library | open: Mops/s | open: B/op | throttled: Mops/s | throttled: B/op |")
    print("|---|---:|---:|---:|---:|")
    found = {}
    for library, label in LIBRARIES:
        cells = []
        for regime in ("open", "throttled"):
            run = find("LocalLimiterBench." + method, library, regime)
            if run is None:
                break
            found[(library, regime)] = score(run)[0]
            value, error = score(run)
            cells += [f"{value:.1f} ± {error:.1f}", fmt_bytes(alloc(run))]
        if cells:
            print(f"| {label} | " + " | ".join(cells) + " |")
    decision = find("SluiceDecisionBench." + method, None, None)
    if decision is not None or method.startswith("oneKey"):
        cells = []
        for regime in ("open", "throttled"):
            run = find("SluiceDecisionBench." + method, None, regime)
            if run:
                value, error = score(run)
                cells += [f"{value:.1f} ± {error:.1f}", fmt_bytes(alloc(run))]
        if cells:
            print("| Sluice, `tryAcquire` with the whole Decision to a Blackhole | " + " | ".join(cells) + " |")
    ratios = [found[("sluice", r)] / found[("bucket4j", r)] for r in ("open", "throttled")
              if ("sluice", r) in found and ("bucket4j", r) in found]
    if len(ratios) == 2:
        print(f"| **Sluice / Bucket4j** | **{ratios[0]:.2f}x** | | **{ratios[1]:.2f}x** | |")
    print()

clock = [run for run in runs if ".ClockBench." in run["benchmark"]]
if clock:
    parts = [f"`{run['benchmark'].rsplit('.', 1)[1]}` {score(run)[0]:.1f} ± {score(run)[1]:.1f} Mops/s"
             for run in clock]
    print("Control (`ClockBench`, 1 thread): " + ", ".join(parts) + ".\n")

print("### Retained heap per idle key (`RetainedBytesPerKey`)\n")
print("| library | bytes per idle key |")
print("|---|---:|")
for library, value in memory["medianBytesPerKey"].items():
    print(f"| {library} | {value} |")
