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
    ("B", "mem_bytes_per_completed_job", "Redis `used_memory` per retained completed job", "bytes", LOWER),
    ("C", "hr_add_to_start_p50_ms", "add() issued → processor invoked, p50", "ms", LOWER),
    ("C", "hr_add_to_start_p99_ms", "add() issued → processor invoked, p99", "ms", LOWER),
    ("C", "hr_add_to_start_max_ms", "add() issued → processor invoked, max", "ms", LOWER),
    ("C", "latency_p50_ms", "engine stamps: created → started, p50", "ms", LOWER),
    ("C", "latency_p99_ms", "engine stamps: created → started, p99", "ms", LOWER),
    ("C", "latency_max_ms", "engine stamps: created → started, max", "ms", LOWER),
    ("C", "completed_p99_ms", "engine stamps: created → finished, p99", "ms", LOWER),
    ("C", "producer_jobs_per_s", "producer rate achieved", "jobs/s", None),
    ("C", "redis_cpu_us_per_job", "Redis CPU per job (idle 0.5 s + 2 s of traffic)", "µs", LOWER),
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
]

LIMIT = 100
CPU_TARGET_US = 15
THROUGHPUT_TARGET = 3.0
MEMORY_TARGET = 0.4


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
    doc["targets"] = targets(doc)
    return doc


def runs_of(doc, scenario, who, figure):
    side = doc["scenarios"].get(scenario, {}).get(who) or {}
    return [v for v in side.get("perRun", {}).get(figure, []) if v is not None]


def targets(doc):
    c = doc["comparison"]
    out = {}

    def at_least(name, keys, factor, what):
        cases = {}
        for key in keys:
            if key in c and c[key]["sluiceOverBullmq"] is not None:
                cases[key] = round(c[key]["sluiceOverBullmq"], 3)
        if cases:
            out[name] = {"target": what, "ratios": cases, "met": all(v >= factor for v in cases.values())}

    at_least("enqueue3x", ["A.addBulk_jobs_per_s", "A.add64_jobs_per_s"], THROUGHPUT_TARGET,
             "Sluice >= 3x BullMQ's jobs/s in A (both ways of adding)")
    at_least("process3x", ["B.c1_jobs_per_s", "B.c10_jobs_per_s", "B.c100_jobs_per_s"], THROUGHPUT_TARGET,
             "Sluice >= 3x BullMQ's jobs/s in every B case (concurrency 1, 10, 100)")
    cpu = {k: c[k]["sluice"] for k in ("B.c1_lifecycle_redis_cpu_us_per_job", "B.c10_lifecycle_redis_cpu_us_per_job",
                                       "B.c100_lifecycle_redis_cpu_us_per_job") if k in c and c[k]["sluice"] is not None}
    if cpu:
        out["redisCpuPerLifecycle"] = {"target": "Sluice <= 15 Redis CPU µs per job lifecycle (bulk add, claim,"
                                                 " complete), every B case", "sluice": cpu,
                                       "met": all(v <= CPU_TARGET_US for v in cpu.values())}
    key = "B.mem_bytes_per_completed_job"
    if key in c and c[key]["sluiceOverBullmq"] is not None:
        out["memoryPerRetainedJob"] = {"target": "Sluice <= 0.4x BullMQ's Redis bytes per retained completed job",
                                       "ratio": round(c[key]["sluiceOverBullmq"], 3),
                                       "met": c[key]["sluiceOverBullmq"] <= MEMORY_TARGET}
    key = "C.hr_add_to_start_p99_ms"
    if key in c and c[key]["sluiceOverBullmq"] is not None:
        out["latencyP99"] = {"target": "Sluice's C p99 (add() issued -> processor invoked) no worse than BullMQ's",
                             "sluice": c[key]["sluice"], "bullmq": c[key]["bullmq"],
                             "met": c[key]["sluice"] <= c[key]["bullmq"]}
    for s in ("D", "E"):
        invoked = runs_of(doc, s, "sluice", "max_sliding_1000ms")
        stamped = runs_of(doc, s, "sluice", "max_sliding_1000ms_processedOn")
        if invoked or stamped:
            out[f"limit{s}"] = {
                "target": f"{s}: never more than {LIMIT} starts in any sliding 1,000 ms window, in any run",
                "sluiceMaxProcessorInvoked": max(invoked) if invoked else None,
                "sluiceMaxEngineStamp": max(stamped) if stamped else None,
                "metByProcessorInvoked": bool(invoked) and max(invoked) <= LIMIT,
                "metByEngineStamp": bool(stamped) and max(stamped) <= LIMIT,
            }
    return out


def fmt(value, unit):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if unit in ("jobs/s",):
        return f"{value:,.0f}" if value >= 1000 else f"{value:,.1f}"
    if unit == "µs":
        return f"{value:,.1f}"
    if unit == "ms":
        return f"{value:,.2f}"
    return f"{value:,.0f}"


def target_cell(doc, s, figure):
    t = doc["targets"]
    if s == "A" and figure in ("addBulk_jobs_per_s", "add64_jobs_per_s") and "enqueue3x" in t:
        r = t["enqueue3x"]["ratios"].get(f"A.{figure}")
        return f"≥ 3x: {'met' if r is not None and r >= THROUGHPUT_TARGET else 'missed'}"
    if s == "B" and figure in ("c1_jobs_per_s", "c10_jobs_per_s", "c100_jobs_per_s") and "process3x" in t:
        r = t["process3x"]["ratios"].get(f"B.{figure}")
        return f"≥ 3x: {'met' if r is not None and r >= THROUGHPUT_TARGET else 'missed'}"
    if s == "B" and figure in ("c1_lifecycle_redis_cpu_us_per_job", "c10_lifecycle_redis_cpu_us_per_job",
                               "c100_lifecycle_redis_cpu_us_per_job") and "redisCpuPerLifecycle" in t:
        v = t["redisCpuPerLifecycle"]["sluice"].get(f"B.{figure}")
        return f"≤ 15 µs: {'met' if v is not None and v <= CPU_TARGET_US else 'missed'}"
    if s == "B" and figure == "mem_bytes_per_completed_job" and "memoryPerRetainedJob" in t:
        return f"≤ 0.4x: {'met' if t['memoryPerRetainedJob']['met'] else 'missed'}"
    if s == "C" and figure == "hr_add_to_start_p99_ms" and "latencyP99" in t:
        return f"≤ 1x: {'met' if t['latencyP99']['met'] else 'missed'}"
    if s in ("D", "E") and f"limit{s}" in t:
        lt = t[f"limit{s}"]
        if figure == "max_sliding_1000ms":
            return (f"≤ {LIMIT} in every run: {'met' if lt['metByProcessorInvoked'] else 'missed'}"
                    f" (most: {fmt(lt['sluiceMaxProcessorInvoked'], 'starts')})")
        if figure == "max_sliding_1000ms_processedOn":
            return (f"≤ {LIMIT} in every run: {'met' if lt['metByEngineStamp'] else 'missed'}"
                    f" (most: {fmt(lt['sluiceMaxEngineStamp'], 'starts')})")
    return ""


def tables(doc):
    lines = []
    env = doc["environment"]
    sl_env = env.get("sluice") or {}
    bq_env = env.get("bullmq") or {}
    jdk = sl_env.get("jdk", {})
    jvm_args = " ".join(a for a in jdk.get("jvmArgs", []) if not a.startswith("-Dsluice.bench."))
    order = "; ".join(f"{s}: {' then '.join(w)}" for s, w in doc["order"].items())
    runs = {s: (v.get("sluice") or {}).get("runs") for s, v in doc["scenarios"].items()}
    lines.append(
        f"Run: {doc['date']}, commit `{doc['commit']}`, engine as of `{doc.get('measuredCodeCommit')}` (the last "
        f"commit that changed sluice-core or sluice-redis; uncommitted changes in them: "
        f"{doc['uncommittedChanges']}; Redis engine sources SHA-256 `{doc['engineSourcesSha256']}`); "
        f"{doc['redis']}, private, no persistence; Sluice on JDK {jdk.get('version')} ({jdk.get('vendor')}) "
        f"{jvm_args}, Lettuce {sl_env.get('lettuce')}; BullMQ {bq_env.get('bullmq')} on node {bq_env.get('node')}, "
        f"ioredis {bq_env.get('ioredis')}; {bq_env.get('cpus')} vCPUs ({bq_env.get('cpu_model')}), shared by "
        f"Redis, the harness and other tenants. Runs per scenario: "
        f"{', '.join(f'{s} {r}' for s, r in runs.items())}; medians. Order: {order}. "
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
        if r is not None and target_cell(doc, s, figure).startswith("≥"):
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
                 "BullMQ's `processedOn` and Sluice's `startedAt` (Redis's clock, when the job was claimed).")
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

    lines.append("Against the targets of issue 10:")
    lines.append("")
    lines.append("| target | result |")
    lines.append("|---|---|")
    t = doc["targets"]
    def met(flag):
        return "**met**" if flag else "**missed**"
    if "enqueue3x" in t:
        lines.append(f"| ≥ 3x BullMQ on A | {met(t['enqueue3x']['met'])}: "
                     + ", ".join(f"{k.split('.')[1]} {v:.2f}x" for k, v in t["enqueue3x"]["ratios"].items()) + " |")
    if "process3x" in t:
        lines.append(f"| ≥ 3x BullMQ on every B case | {met(t['process3x']['met'])}: "
                     + ", ".join(f"{k.split('.')[1]} {v:.2f}x" for k, v in t["process3x"]["ratios"].items()) + " |")
    if "redisCpuPerLifecycle" in t:
        lines.append(f"| ≤ 15 Redis CPU µs per job lifecycle | {met(t['redisCpuPerLifecycle']['met'])}: "
                     + ", ".join(f"{k.split('.')[1].split('_')[0]} {v:.1f} µs"
                                 for k, v in t["redisCpuPerLifecycle"]["sluice"].items()) + " |")
    if "memoryPerRetainedJob" in t:
        lines.append(f"| ≤ 0.4x BullMQ's bytes per retained job | {met(t['memoryPerRetainedJob']['met'])}: "
                     f"{t['memoryPerRetainedJob']['ratio']:.2f}x |")
    if "latencyP99" in t:
        lines.append(f"| C p99 no worse than BullMQ's | {met(t['latencyP99']['met'])}: "
                     f"{t['latencyP99']['sluice']:.2f} ms against {t['latencyP99']['bullmq']:.2f} ms |")
    for s in ("D", "E"):
        if f"limit{s}" in t:
            lt = t[f"limit{s}"]
            lines.append(f"| {s} never over {LIMIT} in any sliding 1,000 ms | by the engine's stamps: "
                         f"{met(lt['metByEngineStamp'])} (most {fmt(lt['sluiceMaxEngineStamp'], 'starts')}); "
                         f"by processor-invoked times: {met(lt['metByProcessorInvoked'])} "
                         f"(most {fmt(lt['sluiceMaxProcessorInvoked'], 'starts')}) |")
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
