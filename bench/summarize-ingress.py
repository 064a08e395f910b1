#!/usr/bin/env python3
"""Reads the wrk outputs of bench/run-ingress.sh and writes ingress.json and ingress.md (medians over rounds)."""
import json
import re
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path

raw, out = Path(sys.argv[1]), Path(sys.argv[2])
rounds, seconds, connections, exact = (int(x) for x in sys.argv[3:7])
commit, measured, dirty, jdk, wrk, machine = sys.argv[7:13]
UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def latency(text, pct):
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)$" % pct, text, re.M)
    return float(m.group(1)) * UNITS[m.group(2)]


def parse(path):
    text = path.read_text()
    total = int(re.search(r"(\d+) requests in", text).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    row = {"requests": total, "non_2xx": int(non2xx.group(1)) if non2xx else 0,
           "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))}
    if "Latency Distribution" in text:
        row.update(p50_ms=latency(text, 50), p99_ms=latency(text, 99))
    return row


modes = ["plain", "sluice", "bucket4j"]
runs = {m: [parse(raw / f"open-{m}-{r}.txt") for r in range(1, rounds + 1)] for m in modes}
med = {m: {k: statistics.median(run[k] for run in runs[m]) for k in ("requests_per_s", "p50_ms", "p99_ms")}
       for m in modes}
exacts = {m: parse(raw / f"exact-{m}.txt") for m in ("sluice", "bucket4j")}
for m, e in exacts.items():
    e["ok"] = e["requests"] - e["non_2xx"]

cost = {m: 1 - med[m]["requests_per_s"] / med["plain"]["requests_per_s"] for m in ("sluice", "bucket4j")}
added_p99_us = {m: (med[m]["p99_ms"] - med["plain"]["p99_ms"]) * 1000 for m in ("sluice", "bucket4j")}
per_round_cost = [1 - s["requests_per_s"] / p["requests_per_s"] for s, p in zip(runs["sluice"], runs["plain"])]
result = {
    "run": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": commit, "measured_commit": measured,
    "uncommitted": dirty, "jdk": jdk, "wrk": wrk, "machine": machine, "rounds": rounds, "seconds": seconds,
    "connections": connections, "open": runs, "open_medians": med, "throughput_cost": cost,
    "added_p99_us": added_p99_us, "exact_limit": exact, "exact": exacts,
}
(out / "ingress.json").write_text(json.dumps(result, indent=2) + "\n")


def pct(x):
    return f"{x * 100:.1f}%"


lines = [
    "# Ingress filter: cost per request against no filter and against Bucket4j",
    "",
    "Reproduce: `bench/run-ingress.sh` (needs `wrk`, a Debian package), which builds the bench jar, runs "
    "`dev.sluice.bench.IngressServer` (Jetty 12, one `GET /hello` endpoint with a 2-byte body) once per mode and "
    "round, and loads it with wrk over loopback; `bench/summarize-ingress.py` writes this file and `ingress.json`.",
    "",
    f"Run: {result['run']}, commit `{commit}` (sluice-core and sluice-http as of `{measured}`; uncommitted changes in "
    f"them: {dirty}); {jdk}, heap 1 GB; {wrk}; {machine}: wrk and the server share the 2 cores, so the absolute "
    "numbers are the machine's, and only the ratios within this run mean much.",
    "",
    "Modes, each keyed by the client address (`getRemoteAddr`, one client here) with a limit no load reaches "
    "(a token bucket of 10^9 a second: every request is allowed, so the whole cost of the filter is measured):",
    "- `plain`: no filter;",
    "- `sluice`: `SluiceRateLimitFilter` with one rule on the in-memory engine; every response carries "
    "`RateLimit-Policy` and `RateLimit`;",
    "- `bucket4j`: Bucket4j 8.17 (`bucket4j_jdk17-core`) in a filter shaped as its Spring Boot starter's (a bucket per "
    "key in a `ConcurrentHashMap`, `X-Rate-Limit-Remaining` on every response). The starter itself is not available "
    "from the registry this machine reaches, so the peer is its core in a filter of the same shape.",
    "",
    f"wrk: 1 thread, {connections} connections, a 3 s warm-up then {seconds} s measured, per mode and round; "
    f"{rounds} rounds, the order of the modes rotated each round. Cells are medians over the rounds.",
    "",
    "| mode | requests/s | p50 (ms) | p99 (ms) | throughput cost | added p99 (µs) |",
    "|---|---:|---:|---:|---:|---:|",
]
for m in modes:
    c = "" if m == "plain" else pct(cost[m])
    a = "" if m == "plain" else f"{added_p99_us[m]:.0f}"
    lines.append(f"| {m} | {med[m]['requests_per_s']:,.0f} | {med[m]['p50_ms']:.3f} | {med[m]['p99_ms']:.3f} | {c} | {a} |")
lines += [
    "",
    "Every round (requests/s): " + "; ".join(
        f"{m} " + ", ".join(f"{r['requests_per_s']:,.0f}" for r in runs[m]) for m in modes),
    "",
    "Sluice's cost against `plain` per round: " + ", ".join(pct(c) for c in per_round_cost) + ".",
    "",
    f"**Exact limit**: {exact} requests allowed per hour (Sluice: `FixedWindow.of({exact}, 1 h)`; Bucket4j: {exact} "
    "tokens refilled once an hour), 5 s of the same load:",
    "",
    "| mode | requests | answered 200 | answered 429 | 200s = the limit |",
    "|---|---:|---:|---:|---|",
]
for m, e in exacts.items():
    lines.append(f"| {m} | {e['requests']:,} | {e['ok']:,} | {e['non_2xx']:,} | {'yes' if e['ok'] == exact else 'NO'} |")
lines += [
    "",
    "## Against the targets of issue 11",
    "",
    "| target | result |",
    "|---|---|",
    f"| the filter costs at most 5% of the unfiltered endpoint's throughput | "
    f"{'met' if cost['sluice'] <= 0.05 else 'missed'}: {pct(cost['sluice'])} (Bucket4j {pct(cost['bucket4j'])}) |",
    f"| at most 50 µs of added p99 | {'met' if added_p99_us['sluice'] <= 50 else 'missed'}: "
    f"{added_p99_us['sluice']:.0f} µs (Bucket4j {added_p99_us['bucket4j']:.0f} µs) |",
    f"| ahead of the peer filter on both | throughput: {'yes' if med['sluice']['requests_per_s'] >= med['bucket4j']['requests_per_s'] else 'no'}"
    f" ({med['sluice']['requests_per_s'] / med['bucket4j']['requests_per_s']:.2f}x Bucket4j's); p99: "
    f"{'yes' if med['sluice']['p99_ms'] <= med['bucket4j']['p99_ms'] else 'no'} |",
    f"| the count of 200s matches the limit exactly | {'met' if exacts['sluice']['ok'] == exact else 'missed'}: "
    f"{exacts['sluice']['ok']} of {exact} |",
    "",
]
(out / "ingress.md").write_text("\n".join(lines))
print("\n".join(lines))
