#!/usr/bin/env python3
"""Prints the Markdown tables of bench/results/README.md ("Queue, in memory") from one run of
bench/run-queue-local.sh.

Usage: bench/summarize-queue-local.py [results-dir]   (default: bench/results)
"""
import json
import sys
from pathlib import Path

results = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
doc = json.loads((results / "queue-local.json").read_text())
cases = doc["cases"]
ratios = doc["ratios"]
targets = doc["targets"]


def k(value):
    """Jobs per second in thousands, e.g. 1,234k."""
    return "n/a" if value is None else f"{value / 1000:,.0f}k"


def spread(case):
    return f"{k(case['minJobsPerSecond'])} to {k(case['maxJobsPerSecond'])}"


def yes_no(met):
    return "**met**" if met else "**missed**"


work = doc["workload"]
print(f"Run: {doc['date']}, commit `{doc['commit']}` (uncommitted changes: {doc['uncommittedChanges']}; "
      f"queue engine sources SHA-256 `{doc.get('engineSourcesSha256', 'unknown')}`), "
      f"JDK {doc['jdk']['version']} ({doc['jdk']['vendor']}), "
      f"{' '.join(a for a in doc['jdk']['jvmArgs'] if not a.startswith('-Dsluice.bench.'))}; "
      f"{doc['machine']['availableProcessors']} vCPUs ({doc['machine']['cpu']}); "
      f"{work['jobsPerBatch']:,} jobs per batch, {work['warmupRounds']} warm-up + {work['measuredRounds']} "
      f"measured rounds, {doc['wallSeconds']} s.\n")

print("### Enqueue (one thread, fresh queue)\n")
print("| contender | median jobs/s | min to max | / executor |")
print("|---|---:|---:|---:|")
execute = cases.get("enqueue.executor.execute")
for key in ("enqueue.sluice.add", "enqueue.sluice.addBulk500", "enqueue.executor.execute"):
    case = cases.get(key)
    if case is None:
        continue
    ratio = f"{case['medianJobsPerSecond'] / execute['medianJobsPerSecond']:.3f}x" if execute else ""
    print(f"| {case['contender']} | {k(case['medianJobsPerSecond'])} | {spread(case)} | {ratio} |")
print()

print("### Processing (200,000 waiting no-op jobs, one worker / pool)\n")
print("| concurrency | Sluice worker | ThreadPoolExecutor, platform | ThreadPoolExecutor, virtual "
      "| Sluice / platform TPE | Sluice / virtual TPE |")
print("|---:|---:|---:|---:|---:|---:|")
for n in work["concurrency"]:
    sluice = cases.get(f"process.sluice.c{n}")
    tpe = cases.get(f"process.executor.c{n}")
    vtpe = cases.get(f"process.virtualExecutor.c{n}")
    r = ratios.get(f"c{n}")
    cells = []
    for case in (sluice, tpe, vtpe):
        cells.append("n/a" if case is None else f"{k(case['medianJobsPerSecond'])} ({spread(case)})")
    if r:
        cells.append(f"**{r['sluiceOverExecutor']:.3f}x** (per round: {r['sluiceOverExecutorPairedMedian']:.3f}x)")
        cells.append(f"{r['sluiceOverVirtualExecutor']:.3f}x (per round: "
                     f"{r['sluiceOverVirtualExecutorPairedMedian']:.3f}x)")
    else:
        cells += ["n/a", "n/a"]
    print(f"| {n} | " + " | ".join(cells) + " |")
print()
print("Cells: median jobs/s (min to max over the measured rounds). Ratios: of the medians, and in brackets the "
      "median of the round-by-round ratios.\n")

print("### Where the time goes (diagnostics, medians over the rounds)\n")
print("| case | jobs/s | CPUs busy | CPU ns per job | bytes allocated per job |")
print("|---|---:|---:|---:|---:|")
for key, case in cases.items():
    label = f"{case['contender']}" + (f", n = {case['concurrency']}" if case["kind"] == "process" else "")
    print(f"| {case['kind']}: {label} | {k(case['medianJobsPerSecond'])} | {case['medianCpusBusy']:.2f} "
          f"| {case['medianCpuNanosPerJob']:.0f} | {case['medianAllocatedBytesPerJob']:.0f} |")
print()
print(f"CPU: {doc['jdk'].get('cpuTimeSource', 'process CPU time')}: every thread of the process (JIT and GC "
      "threads too) while the batch ran; 'CPUs busy' is that over the wall time (2 at most here). Allocation: "
      "`ThreadMXBean.getTotalThreadAllocatedBytes`. Collections during timed batches: "
      f"{sum(sum(c.get('gcCount', [])) for c in cases.values())} in all.\n")

print("### Against the targets\n")
print("| target | result |")
print("|---|---|")
if "enqueueAdd" in targets:
    t = targets["enqueueAdd"]
    print(f"| enqueue ≥ 1,000,000 jobs/s, single `add` | {yes_no(t['met'])}: {k(t['medianJobsPerSecond'])} |")
    t = targets["enqueueAddBulk"]
    print(f"| enqueue ≥ 1,000,000 jobs/s, `addBulk` by 500 | {yes_no(t['met'])}: {k(t['medianJobsPerSecond'])} |")
if "processC10" in targets:
    t = targets["processC10"]
    print(f"| concurrency 10 ≥ 0.5x the platform-thread ThreadPoolExecutor | {yes_no(t['met'])}: "
          f"{t['ratioOfMedians']:.3f}x (per round: {t['pairedMedianRatio']:.3f}x) |")
