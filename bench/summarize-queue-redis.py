#!/usr/bin/env python3
"""Merges one sitting of bench/run-queue-redis.sh (the BullMQ harness's JSON lines and QueueRedisBench's JSON
documents, one per scenario) into queue-redis.json, prints the Markdown tables, and writes them into the results
README between its queue-redis markers.

Usage (as bench/run-queue-redis.sh calls it):
  bench/summarize-queue-redis.py --bullmq bullmq.jsonl --sluice sluice-A.json ... --results bench/results
      [--order 'A:bullmq,sluice;B:sluice,bullmq;...'] [--wall-seconds S] [--redis 'Redis server v=...']
Again from a written queue-redis.json (prints the tables, rewrites the README section):
  bench/summarize-queue-redis.py --results bench/results
"""
import argparse
import json
import math
import sys
from pathlib import Path

BEGIN = "<!-- queue-redis:begin (written by bench/summarize-queue-redis.py) -->"
END = "<!-- queue-redis:end -->"

HIGHER, LOWER = "higher", "lower"

# (scenario, figure, label, unit, better)
ROWS = [
    ("A", "addBulk_jobs_per_s", "addBulk, batches of 500", "jobs/s", HIGHER),
    ("A", "add64_jobs_per_s", "single adds, 64 in flight", "jobs/s", HIGHER),
    ("A", "addBulk_redis_cpu_us_per_job", "Redis CPU per job, addBulk", "µs", LOWER),
    ("A", "add64_redis_cpu_us_per_job", "Redis CPU per job, single adds", "µs", LOWER),
    ("A", "addBulk_client_cpu_us_per_job", "client CPU per job, addBulk", "µs", LOWER),
    ("A", "add64_client_cpu_us_per_job", "client CPU per job, single adds", "µs", LOWER),
    ("B", "noop_calls_per_s", "no-op FCALL loop, one call in flight (the floor of concurrency 1)", "calls/s", HIGHER),
    ("B", "noop_us_per_call", "… its round trip", "µs", LOWER),
    ("B", "noop_redis_cpu_us_per_call", "… its Redis CPU per call", "µs", LOWER),
    ("B", "noop_client_cpu_us_per_call", "… its client CPU per call", "µs", LOWER),
    ("B", "c1_jobs_per_s", "process, concurrency 1", "jobs/s", HIGHER),
    ("B", "c10_jobs_per_s", "process, concurrency 10", "jobs/s", HIGHER),
    ("B", "c100_jobs_per_s", "process, concurrency 100", "jobs/s", HIGHER),
    ("B", "keep_c100_jobs_per_s", "process, concurrency 100, completed jobs kept", "jobs/s", HIGHER),
    ("B", "c1_lifecycle_redis_cpu_us_per_job", "Redis CPU per job lifecycle (bulk add + process), c1", "µs", LOWER),
    ("B", "c10_lifecycle_redis_cpu_us_per_job", "Redis CPU per job lifecycle, c10", "µs", LOWER),
    ("B", "c100_lifecycle_redis_cpu_us_per_job", "Redis CPU per job lifecycle, c100", "µs", LOWER),
    ("B", "keep_c100_lifecycle_redis_cpu_us_per_job", "Redis CPU per job lifecycle, c100, kept", "µs", LOWER),
    ("B", "c1_process_redis_cpu_us_per_job", "… of which processing (claim + complete), c1", "µs", LOWER),
    ("B", "c10_process_redis_cpu_us_per_job", "… of which processing, c10", "µs", LOWER),
    ("B", "c100_process_redis_cpu_us_per_job", "… of which processing, c100", "µs", LOWER),
    ("B", "c1_lifecycle_client_cpu_us_per_job", "client CPU per job lifecycle (bulk add + process), c1", "µs", LOWER),
    ("B", "c10_lifecycle_client_cpu_us_per_job", "client CPU per job lifecycle, c10", "µs", LOWER),
    ("B", "c100_lifecycle_client_cpu_us_per_job", "client CPU per job lifecycle, c100", "µs", LOWER),
    ("B", "keep_c100_lifecycle_client_cpu_us_per_job", "client CPU per job lifecycle, c100, kept", "µs", LOWER),
    ("B", "c1_process_client_cpu_us_per_job", "… of which processing, c1", "µs", LOWER),
    ("B", "c10_process_client_cpu_us_per_job", "… of which processing, c10", "µs", LOWER),
    ("B", "c100_process_client_cpu_us_per_job", "… of which processing, c100", "µs", LOWER),
    ("B", "mem_bytes_per_completed_job", "Redis `used_memory` per retained completed job", "bytes", LOWER),
    ("C", "hr_add_to_start_p50_ms", "add() issued → processor invoked, p50", "ms", LOWER),
    ("C", "hr_add_to_start_p99_ms", "add() issued → processor invoked, p99", "ms", LOWER),
    ("C", "hr_add_to_start_max_ms", "add() issued → processor invoked, max", "ms", LOWER),
    ("C", "latency_p50_ms", "engine stamps: created → started, p50", "ms", LOWER),
    ("C", "latency_p99_ms", "engine stamps: created → started, p99", "ms", LOWER),
    ("C", "latency_max_ms", "engine stamps: created → started, max", "ms", LOWER),
    ("C", "completed_p99_ms", "engine stamps: created → finished, p99", "ms", LOWER),
    ("C", "producer_jobs_per_s", "producer rate achieved", "jobs/s", None),
    ("C", "issued_to_created_p99_ms", "add() issued → Redis's created stamp, p99 (Sluice only)", "ms", LOWER),
    ("C", "started_to_invoked_p99_ms", "Redis's started stamp → processor invoked, p99 (Sluice only)", "ms", LOWER),
    ("C", "redis_cpu_us_per_job", "Redis CPU per job (idle 0.5 s + 2 s of traffic)", "µs", LOWER),
    ("C", "client_cpu_us_per_job", "client CPU per job, same phase", "µs", LOWER),
    ("D", "achieved_jobs_per_s", "achieved (limit 100 per 1,000 ms)", "jobs/s", None),
    ("D", "max_sliding_1000ms", "most starts in any sliding 1,000 ms, processor invoked", "starts", LOWER),
    ("D", "max_sliding_1000ms_processedOn", "most starts in any sliding 1,000 ms, engine's stamp", "starts", LOWER),
    ("D", "max_fixed_aligned_1000ms", "most starts in a fixed aligned second, processor invoked", "starts", LOWER),
    ("D", "start_delay_p99_ms", "engine's stamp → processor invoked, p99", "ms", LOWER),
    ("D", "redis_cpu_us_per_job", "Redis CPU per job", "µs", LOWER),
    ("E", "achieved_jobs_per_s", "achieved (2 processes, limit 100 per 1,000 ms)", "jobs/s", None),
    ("E", "max_sliding_1000ms", "most starts in any sliding 1,000 ms, processor invoked", "starts", LOWER),
    ("E", "max_sliding_1000ms_processedOn", "most starts in any sliding 1,000 ms, engine's stamp", "starts", LOWER),
    ("E", "max_fixed_aligned_1000ms", "most starts in a fixed aligned second, processor invoked", "starts", LOWER),
    ("E", "start_delay_p99_ms", "engine's stamp → processor invoked, p99", "ms", LOWER),
    ("E", "jobs_in_parent", "jobs in the first process", "jobs", None),
    ("E", "jobs_in_child", "jobs in the second process", "jobs", None),
    ("E", "redis_cpu_us_per_job", "Redis CPU per job", "µs", LOWER),
    ("F", "features_c100_jobs_per_s", "process, c100, listener + kept jobs + 10 rate-limited groups", "jobs/s", HIGHER),
    ("F", "features_c100_lifecycle_redis_cpu_us_per_job", "Redis CPU per job lifecycle (bulk add + process)", "µs",
     LOWER),
    ("F", "features_c100_process_redis_cpu_us_per_job", "… of which processing", "µs", LOWER),
    ("F", "features_c100_lifecycle_client_cpu_us_per_job", "client CPU per job lifecycle", "µs", LOWER),
    ("F", "features_c100_process_client_cpu_us_per_job", "… of which processing", "µs", LOWER),
]

LIMIT = 100
# The targets of issue 19, each a ratio or a bound within one sitting.
THROUGHPUT_TARGET = 3.0  # A (both ways of adding), B c10 and c100: Sluice / BullMQ jobs/s
C1_TARGET = 2.0  # B c1: Sluice / BullMQ jobs/s
C1_NOOP_TARGET = 0.8  # B c1 jobs/s / the no-op call loop's calls/s
CPU_PLAIN_US = 10  # Redis CPU µs per job lifecycle, B c100
CPU_FEATURES_US = 15  # Redis CPU µs per job lifecycle, F (listener, kept jobs, 10 rate-limited groups), c100
MEMORY_TARGET = 0.3  # Sluice / BullMQ Redis bytes per retained completed job
F_KEY = "F.features_c100_lifecycle_redis_cpu_us_per_job"


def load_bullmq(path):
    scenarios = {}
    env = None
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        doc = json.loads(line)
        env = doc.get("env", env)
        scenarios[doc["scenario"]] = {
            "title": doc["title"],
            "started": doc["started"],
            "runs": doc["runs"],
            "warmupRuns": doc["warmup_runs"],
            "params": doc["params"],
            "median": doc["median"],
            "perRun": {k: [r.get(k) for r in doc["per_run"]] for k in doc["per_run"][0]},
            "loadavg1AtRunStart": doc["loadavg1_at_run_start"],
        }
    return scenarios, env


def load_sluice(paths):
    scenarios = {}
    meta = None
    for path in paths:
        doc = json.loads(Path(path).read_text())
        if meta is None:
            meta = {k: doc.get(k) for k in ("date", "commit", "measuredCodeCommit", "uncommittedChanges",
                                            "engineSourcesSha256", "environment")}
        scenarios.update(doc["scenarios"])
    return scenarios, meta


def ratio(a, b):
    if a is None or b is None or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return None
    if b == 0 or math.isnan(a) or math.isnan(b):
        return None
    return a / b


def merge(args):
    bullmq, bullmq_env = load_bullmq(args.bullmq)
    sluice, meta = load_sluice(args.sluice)
    order = {}
    for part in filter(None, (args.order or "").split(";")):
        scenario, who = part.split(":")
        order[scenario] = who.split(",")
    scenarios = {}
    for s in sorted(set(bullmq) | set(sluice)):
        scenarios[s] = {"sluice": sluice.get(s), "bullmq": bullmq.get(s)}
    comparison = {}
    for s, figure, label, unit, better in ROWS:
        sl = (scenarios.get(s, {}).get("sluice") or {}).get("median", {}).get(figure)
        bq = (scenarios.get(s, {}).get("bullmq") or {}).get("median", {}).get(figure)
        if sl is None and bq is None:
            continue
        comparison[f"{s}.{figure}"] = {"label": label, "unit": unit, "better": better, "sluice": sl,
                                       "bullmq": bq, "sluiceOverBullmq": ratio(sl, bq)}
    doc = {
        "benchmark": "bench/run-queue-redis.sh (QueueRedisBench and the BullMQ harness, one private Redis)",
        "date": meta["date"] if meta else None,
        "wallSeconds": args.wall_seconds,
        "commit": meta["commit"] if meta else None,
        "measuredCodeCommit": meta["measuredCodeCommit"] if meta else None,
        "uncommittedChanges": meta["uncommittedChanges"] if meta else None,
        "engineSourcesSha256": meta["engineSourcesSha256"] if meta else None,
        "redis": args.redis,
        "order": order,
        "environment": {"sluice": meta["environment"] if meta else None, "bullmq": bullmq_env},
        "bullmqHarness": "../shared/bench/bullmq/bench.mjs with bench/bullmq-redis-cpu.patch (INFO cpu reads"
                         " around the measured phases, outside the harness's clocks)",
        "scenarios": scenarios,
        "comparison": comparison,
    }
    if args.floors:
        floors = json.loads(Path(args.floors).read_text())
        doc["floors"] = {
            "command": "bench/run-queue-floors.sh",
            "what": "Redis CPU per job of scripts doing only the commands every job costs in this layout, pipelined:"
                    " an add (record, payload, waiting entry; 500 a call) and a plain worker's processing (claim and"
                    " end 50 a call)",
            **floors}
    doc["targets"] = targets(doc)
    return doc


def runs_of(doc, scenario, who, figure):
    side = doc["scenarios"].get(scenario, {}).get(who) or {}
    return [v for v in side.get("perRun", {}).get(figure, []) if v is not None]


def targets(doc):
    """Each target of issue 19 that the sitting has figures for: what it asks, the figure, and whether it was met.
    `keys` names the comparison rows whose table cell shows the target."""
    c = doc["comparison"]
    out = {}

    def sluice(key):
        return c[key]["sluice"] if key in c else None

    def at_least_bullmq(name, case, key, factor):
        r = c[key]["sluiceOverBullmq"] if key in c else None
        if r is not None:
            out[name] = {"case": case, "target": f"≥ {factor:g}x BullMQ's jobs/s", "cell": f"≥ {factor:g}x BullMQ",
                         "figure": f"{r:.2f}x", "value": round(r, 3), "met": r >= factor, "keys": [key]}

    at_least_bullmq("A.addBulk", "A, addBulk", "A.addBulk_jobs_per_s", THROUGHPUT_TARGET)
    at_least_bullmq("A.add64", "A, single adds", "A.add64_jobs_per_s", THROUGHPUT_TARGET)
    at_least_bullmq("B.c1", "B, concurrency 1", "B.c1_jobs_per_s", C1_TARGET)
    r = ratio(sluice("B.c1_jobs_per_s"), sluice("B.noop_calls_per_s"))
    if r is not None:
        out["B.c1/noop"] = {"case": "B, concurrency 1", "target": f"≥ {C1_NOOP_TARGET:g}x the no-op call loop"
                                                                  " (jobs/s over its calls/s)",
                            "cell": f"B c1 ≥ {C1_NOOP_TARGET:g}x the loop", "figure": f"{r:.2f}x",
                            "value": round(r, 3), "met": r >= C1_NOOP_TARGET,
                            "keys": ["B.c1_jobs_per_s", "B.noop_calls_per_s"]}
    at_least_bullmq("B.c10", "B, concurrency 10", "B.c10_jobs_per_s", THROUGHPUT_TARGET)
    at_least_bullmq("B.c100", "B, concurrency 100", "B.c100_jobs_per_s", THROUGHPUT_TARGET)

    def at_most_us(name, case, key, bound):
        v = sluice(key)
        if v is not None:
            out[name] = {"case": case, "target": f"≤ {bound:g} µs Redis CPU per job lifecycle",
                         "cell": f"≤ {bound:g} µs", "figure": f"{v:.1f} µs", "value": round(v, 3), "met": v <= bound,
                         "keys": [key]}

    at_most_us("B.c100.cpu", "B, concurrency 100, plain", "B.c100_lifecycle_redis_cpu_us_per_job", CPU_PLAIN_US)
    floors = doc.get("floors")
    if floors and "B.c100.cpu" in out:
        floor = floors["addRedisCpuUsPerJob"] + floors["processRedisCpuUsPerJob"]
        out["B.c100.cpu"]["floor"] = round(floor, 3)
        out["B.c100.cpu"]["figure"] += f" (the layout's commands alone: {floor:.1f} µs)"
    loop = sluice("B.noop_calls_per_s")
    if "B.c1" in out and loop:
        needed = c["B.c1_jobs_per_s"]["bullmq"] * C1_TARGET
        out["B.c1"]["figure"] += f" ({C1_TARGET:g}x BullMQ is {needed:,.0f} jobs/s: {needed / loop:.2f}x the loop"
        if floors and "oneInFlightExtraUsPerCall" in floors:
            # the loop's round trip plus what the layout's commands for one job add to a call at one in flight
            floor = 1e6 / (1e6 / loop + floors["oneInFlightExtraUsPerCall"])
            out["B.c1"]["floor"] = round(floor, 1)
            out["B.c1/noop"]["floor"] = round(floor / loop, 3)
            out["B.c1"]["figure"] += f"; the layout's commands alone allow {floor:,.0f}"
            out["B.c1/noop"]["figure"] += f" (the layout's commands alone: {floor / loop:.2f}x)"
        out["B.c1"]["figure"] += ")"
    at_most_us("F.cpu", "F: c100, listener, kept jobs, 10 rate-limited groups", F_KEY, CPU_FEATURES_US)
    key = "C.hr_add_to_start_p99_ms"
    if key in c and c[key]["sluice"] is not None and c[key]["bullmq"] is not None:
        out["C.p99"] = {"case": "C, add() issued → processor invoked, p99", "target": "no worse than BullMQ's",
                        "cell": "≤ BullMQ's", "figure": f"{c[key]['sluice']:.2f} ms against {c[key]['bullmq']:.2f} ms",
                        "value": c[key]["sluice"], "met": c[key]["sluice"] <= c[key]["bullmq"], "keys": [key]}
    for s in ("D", "E"):
        invoked = runs_of(doc, s, "sluice", "max_sliding_1000ms")
        stamped = runs_of(doc, s, "sluice", "max_sliding_1000ms_processedOn")
        if stamped:
            out[f"{s}.limit"] = {
                "case": f"{s}, most starts in any sliding 1,000 ms by the engine's stamps, every run",
                "target": f"exact: ≤ {LIMIT}", "cell": f"≤ {LIMIT} in every run",
                "figure": f"most {max(stamped):.0f} (processor invoked: most "
                          f"{max(invoked) if invoked else float('nan'):.0f})",
                "value": max(stamped), "met": max(stamped) <= LIMIT, "keys": [f"{s}.max_sliding_1000ms_processedOn"]}
    key = "B.mem_bytes_per_completed_job"
    if key in c and c[key]["sluiceOverBullmq"] is not None:
        r = c[key]["sluiceOverBullmq"]
        out["B.memory"] = {"case": "B, Redis bytes per retained completed job", "target": f"≤ {MEMORY_TARGET:g}x"
                                                                                     " BullMQ's",
                           "cell": f"≤ {MEMORY_TARGET:g}x BullMQ",
                           "figure": f"{r:.2f}x", "value": round(r, 3), "met": r <= MEMORY_TARGET, "keys": [key]}
    return out


def fmt(value, unit):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if unit in ("jobs/s", "calls/s"):
        return f"{value:,.0f}" if value >= 1000 else f"{value:,.1f}"
    if unit == "µs":
        return f"{value:,.1f}"
    if unit == "ms":
        return f"{value:,.2f}"
    return f"{value:,.0f}"


def target_cell(doc, s, figure):
    cells = [f"{t['cell']}: {'met' if t['met'] else 'missed'}" + (f" ({t['figure']})" if len(t["keys"]) > 1 else "")
             for t in doc["targets"].values() if f"{s}.{figure}" in t["keys"]]
    return "; ".join(cells)


def tables(doc):
    lines = []
    env = doc["environment"]
    sl_env = env.get("sluice") or {}
    bq_env = env.get("bullmq") or {}
    jdk = sl_env.get("jdk", {})
    jvm_args = " ".join(a for a in jdk.get("jvmArgs", []) if not a.startswith("-Dsluice.bench."))
    order = "; ".join(f"{s}: {' then '.join(w)}" for s, w in doc["order"].items())
    runs = {s: (v.get("sluice") or {}).get("runs") for s, v in doc["scenarios"].items()}
    warmups = {(v.get("sluice") or {}).get("warmupRuns") for v in doc["scenarios"].values()}
    warmups |= {(v.get("bullmq") or {}).get("warmupRuns") for v in doc["scenarios"].values() if v.get("bullmq")}
    lines.append(
        f"Run: {doc['date']}, commit `{doc['commit']}`, engine as of `{doc.get('measuredCodeCommit')}` (the last "
        f"commit that changed sluice-core or sluice-redis; uncommitted changes in them: "
        f"{doc['uncommittedChanges']}; Redis engine sources SHA-256 `{doc['engineSourcesSha256']}`); "
        f"{doc['redis']}, private, no persistence; Sluice on JDK {jdk.get('version')} ({jdk.get('vendor')}) "
        f"{jvm_args}, Lettuce {sl_env.get('lettuce')}; BullMQ {bq_env.get('bullmq')} on node {bq_env.get('node')}, "
        f"ioredis {bq_env.get('ioredis')}; {bq_env.get('cpus')} vCPUs ({bq_env.get('cpu_model')}), shared by "
        f"Redis, the harness and other tenants. Runs per scenario: "
        f"{', '.join(f'{s} {r}' for s, r in runs.items())}, each after "
        f"{' or '.join(str(w) for w in sorted(w for w in warmups if w is not None)) or 'no'} warm-up run(s) of the "
        f"same scenario in the same process, discarded, for both; medians. Order: {order}. "
        f"Wall time {doc['wallSeconds']} s, build and npm install included.")
    lines.append("")
    lines.append("| scenario | figure | Sluice | BullMQ | Sluice / BullMQ | target |")
    lines.append("|---|---|---:|---:|---:|---|")
    for s, figure, label, unit, better in ROWS:
        row = doc["comparison"].get(f"{s}.{figure}")
        if row is None:
            continue
        r = row["sluiceOverBullmq"]
        ratio_text = "" if r is None else f"{r:.2f}x"
        if r is not None and "BullMQ" in target_cell(doc, s, figure) and unit != "bytes":
            ratio_text = f"**{ratio_text}**"
        lines.append(f"| {s} | {label} ({unit}) | {fmt(row['sluice'], unit)} | {fmt(row['bullmq'], unit)} "
                     f"| {ratio_text} | {target_cell(doc, s, figure)} |")
    lines.append("")
    lines.append("Cells: the median over the runs. Redis CPU: `INFO cpu` `used_cpu_sys + used_cpu_user` of the whole "
                 "server, read before and after the measured phase (the same phase for both; for BullMQ by the "
                 "patch), over the jobs. Memory: `INFO memory` `used_memory` on the empty queue before the adds and "
                 "after every job completed and the worker closed, over the jobs (BullMQ's includes its events "
                 "stream). C's engine stamps are BullMQ's own millisecond `timestamp`/`processedOn`/`finishedOn` "
                 "and Sluice's microsecond `createdAt`/`startedAt`/`finishedAt` (Redis's clock). D/E 'processor "
                 "invoked' is when the processor was called (each process's clock, epoch); 'engine's stamp' is "
                 "BullMQ's `processedOn` and Sluice's `startedAt` (Redis's clock, when the job was claimed). Client "
                 "CPU: the CPU time of the benchmark's own process over the same phase (every thread: Sluice's JVM, "
                 "its workers, Lettuce, JIT and GC, from /proc/self/task/*/schedstat; BullMQ's node process, "
                 "`process.cpuUsage()`, by the patch), over the jobs; Sluice's B runs without a listener also poll "
                 "for the end (a 0.2 ms sleep loop, then `stats()` every ms), which is counted. The no-op loop: "
                 "`FCALL` of a function returning 1 with one key, one call in flight, on a Lettuce client set up as "
                 "the engine's (a `byte[]` connection, `async().fcall(...).get(timeout)`), from one platform "
                 "thread, after a tenth as many untimed calls.")
    lines.append("")

    lines.append("Every run (Sluice | BullMQ):")
    lines.append("")
    lines.append("| scenario | figure | Sluice runs | BullMQ runs |")
    lines.append("|---|---|---|---|")
    for s, figure, label, unit, better in ROWS:
        if f"{s}.{figure}" not in doc["comparison"]:
            continue
        sl = ", ".join(fmt(v, unit) for v in runs_of(doc, s, "sluice", figure)) or "n/a"
        bq = ", ".join(fmt(v, unit) for v in runs_of(doc, s, "bullmq", figure)) or "n/a"
        lines.append(f"| {s} | {figure} | {sl} | {bq} |")
    lines.append("")

    extras = []
    b = (doc["scenarios"].get("B", {}).get("sluice") or {}).get("median", {})
    kinds = {k[len("mem_key_bytes"):]: v for k, v in b.items() if k.startswith("mem_key_bytes")}
    if kinds:
        n = (doc["scenarios"]["B"]["sluice"]["params"]).get("n", 1)
        per_job = ", ".join(f"`{k}` {v / n:,.0f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        extras.append(f"Sluice's retained memory by key (`MEMORY USAGE`, bytes per job): {per_job}; in all "
                      f"{b.get('mem_usage_bytes_per_job', float('nan')):,.0f} per job, against "
                      f"{b.get('mem_bytes_per_completed_job', float('nan')):,.0f} of `used_memory` growth.")
    bb = (doc["scenarios"].get("B", {}).get("bullmq") or {}).get("median", {})
    if "mem_bytes_per_job_excl_stream" in bb:
        extras.append(f"BullMQ without its events stream ({bb.get('events_stream_bytes', 0):,.0f} bytes, "
                      f"{bb.get('events_stream_len', 0):,.0f} entries): {bb['mem_bytes_per_job_excl_stream']:,.0f} "
                      f"bytes per job.")
    for s in ("D", "E"):
        sd = (doc["scenarios"].get(s, {}).get("sluice") or {}).get("median", {})
        if "start_delay_p50_ms" in sd:
            extras.append(f"{s}: Sluice's processor was invoked {sd['start_delay_p50_ms']:.2f} ms (p50), "
                          f"{sd['start_delay_p99_ms']:.2f} ms (p99), {sd['start_delay_max_ms']:.2f} ms (max) after "
                          f"the engine's start stamp of its job.")
    for e in extras:
        lines.append(f"- {e}")
    if extras:
        lines.append("")

    lines.append("Against the targets of issue 19 (F is Sluice's alone: BullMQ has groups only in its commercial Pro"
                 " edition, so the harness has no such case):")
    lines.append("")
    lines.append("| case | target | figure | result |")
    lines.append("|---|---|---|---|")
    for t in doc["targets"].values():
        lines.append(f"| {t['case']} | {t['target']} | {t['figure']} | {'**met**' if t['met'] else '**missed**'} |")
    return "\n".join(lines) + "\n"


def write_readme(readme, text):
    if not readme.exists():
        return False
    content = readme.read_text()
    if BEGIN not in content or END not in content:
        print(f"{readme} has no queue-redis markers; tables not written into it", file=sys.stderr)
        return False
    head, rest = content.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + BEGIN + "\n" + text + END + tail)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bullmq")
    parser.add_argument("--sluice", nargs="*")
    parser.add_argument("--floors", help="bench/run-queue-floors.sh --json output of the same sitting")
    parser.add_argument("--order")
    parser.add_argument("--wall-seconds", type=int)
    parser.add_argument("--redis")
    parser.add_argument("--results", default="bench/results")
    args = parser.parse_args()
    results = Path(args.results)
    out = results / "queue-redis.json"
    if args.bullmq or args.sluice:
        if not (args.bullmq and args.sluice):
            parser.error("--bullmq and --sluice go together")
        doc = merge(args)
        out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {out}")
    else:
        doc = json.loads(out.read_text())
    text = tables(doc)
    print()
    print(text)
    if write_readme(results / "README.md", text):
        print(f"wrote the tables into {results / 'README.md'}")


if __name__ == "__main__":
    main()
