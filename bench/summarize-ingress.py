#!/usr/bin/env python3
"""Reads the wrk outputs of bench/run-ingress.sh and writes ingress.json and ingress.md."""
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
MODES = ["plain", "noop", "sluice", "bucket4j"]
FILTERS = ["noop", "sluice", "bucket4j"]


def latency(text, pct):
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)$" % pct, text, re.M)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse(path):
    text = path.read_text()
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {
        "requests": int(re.search(r"(\d+) requests in", text).group(1)),
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50_ms": latency(text, 50),
        "p99_ms": latency(text, 99),
    }


busy = {m: [parse(raw / f"open-{m}-{r}.txt") for r in range(1, rounds + 1)] for m in MODES}
single = {m: [parse(raw / f"one-{m}-{r}.txt") for r in range(1, rounds + 1)] for m in MODES}


def median_of_rounds(series, mode, base, figure):
    return statistics.median(figure(a, b) for a, b in zip(series[mode], series[base]))


def cost(mode, base="plain"):
    return median_of_rounds(busy, mode, base, lambda a, b: 1 - a["requests_per_s"] / b["requests_per_s"])


def added_us(mode, pct, base="plain"):
    key = f"p{pct}_ms"
    return median_of_rounds(single, mode, base, lambda a, b: (a[key] - b[key]) * 1000)


def med(series, mode, key):
    return statistics.median(run[key] for run in series[mode])


exacts = {m: parse(raw / f"exact-{m}.txt") for m in ("sluice", "bucket4j")}
for e in exacts.values():
    e["ok"] = e["requests"] - e["non_2xx"]
summary = {
    m: {
        "requests_per_s": med(busy, m, "requests_per_s"),
        "p50_ms_one_connection": med(single, m, "p50_ms"),
        "p99_ms_one_connection": med(single, m, "p99_ms"),
        "p99_ms_busy": med(busy, m, "p99_ms"),
    }
    for m in MODES
}
for m in FILTERS:
    summary[m].update(
        throughput_cost=cost(m), added_p50_us=added_us(m, 50), added_p99_us=added_us(m, 99),
        throughput_cost_beyond_noop=cost(m, "noop"), added_p99_us_beyond_noop=added_us(m, 99, "noop"))
versus = {
    "throughput_ratio": median_of_rounds(busy, "sluice", "bucket4j", lambda a, b: a["requests_per_s"] / b["requests_per_s"]),
    "p99_difference_us": added_us("sluice", 99, "bucket4j"),
}
result = {
    "run": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": commit, "measured_commit": measured,
    "uncommitted": dirty, "jdk": jdk, "wrk": wrk, "machine": machine, "rounds": rounds, "seconds": seconds,
    "connections": connections, "summary": summary, "sluice_vs_bucket4j": versus, "busy": busy,
    "one_connection": single, "exact_limit": exact, "exact": exacts,
}
(out / "ingress.json").write_text(json.dumps(result, indent=2) + "\n")


def pct(x):
    return f"{x * 100:.1f}%"


s = summary
lines = [
    "# Ingress filter: its cost per request, against no filter and against Bucket4j",
    "",
    "Reproduce: `bench/run-ingress.sh` (needs `wrk`, a Debian package). It builds the bench jar, starts "
    "`dev.sluice.bench.IngressServer` (Jetty 12, one endpoint with a 2-byte body under four paths of one process) and "
    "loads each path with wrk over loopback; `bench/summarize-ingress.py` writes this file and `ingress.json`.",
    "",
    f"Run: {result['run']}, commit `{commit}` (sluice-core and sluice-http as of `{measured}`; uncommitted changes in "
    f"them: {dirty}); {jdk}, heap 1 GB; {wrk}; {machine}. wrk and the server share the 2 cores with other tenants.",
    "",
    "Paths, each limit keyed by the client address (`getRemoteAddr`, one client here), with a limit no load reaches (a "
    "token bucket of 10^9 a second: every request is allowed, so the whole cost of the filter is measured):",
    "- `plain`: no filter;",
    "- `noop`: a filter that only calls `chain.doFilter`: what any servlet filter costs in Jetty;",
    "- `sluice`: `SluiceRateLimitFilter`, one rule, the in-memory engine; every response carries `RateLimit-Policy` "
    "and `RateLimit`;",
    "- `bucket4j`: Bucket4j 8.17 (`bucket4j_jdk17-core`) in a filter of its Spring Boot starter's shape (a bucket per "
    "key in a `ConcurrentHashMap`, `X-Rate-Limit-Remaining` on every response). The starter itself is not among the "
    "artifacts this machine's registry serves, so the peer is its core in a filter of the same shape.",
    "",
    f"{rounds} rounds; in each, every path in turn (the order rotated each round): {seconds} s of wrk (1 thread) with "
    f"{connections} connections for throughput, then {seconds} s with one connection for latency (a closed loop: each "
    "request's own time, without queueing behind the others), after a 5 s warm-up of each path. Other tenants move "
    "the absolute figures by tens of percent from one round to the next, so costs, added latencies and the comparison "
    "with Bucket4j are the medians of each round's own differences; the other cells are medians over the rounds.",
    "",
    f"| path | requests/s, {connections} connections | throughput cost | p50, 1 connection (µs) | p99, 1 connection (µs) | added p50 (µs) | added p99 (µs) |",
    "|---|---:|---:|---:|---:|---:|---:|",
]
for m in MODES:
    row = s[m]
    filtered = m != "plain"
    c = pct(row["throughput_cost"]) if filtered else ""
    a50 = f"{row['added_p50_us']:.0f}" if filtered else ""
    a99 = f"{row['added_p99_us']:.0f}" if filtered else ""
    lines.append(
        f"| {m} | {row['requests_per_s']:,.0f} | {c} | {row['p50_ms_one_connection'] * 1000:.0f} | "
        f"{row['p99_ms_one_connection'] * 1000:.0f} | {a50} | {a99} |")
lines += [
    "",
    f"Beyond the `noop` filter (the rate limiting itself): Sluice {pct(s['sluice']['throughput_cost_beyond_noop'])} of "
    f"throughput and {s['sluice']['added_p99_us_beyond_noop']:.0f} µs of p99; Bucket4j "
    f"{pct(s['bucket4j']['throughput_cost_beyond_noop'])} and {s['bucket4j']['added_p99_us_beyond_noop']:.0f} µs.",
    "",
    "Every round, requests/s with " + str(connections) + " connections: " + "; ".join(
        f"{m} " + ", ".join(f"{r['requests_per_s']:,.0f}" for r in busy[m]) for m in MODES) + ".",
    "",
    "Every round, p99 with one connection (µs): " + "; ".join(
        f"{m} " + ", ".join(f"{r['p99_ms'] * 1000:.0f}" for r in single[m]) for m in MODES) + ".",
    "",
    f"**Exact limit**: {exact} requests allowed per hour (Sluice: `FixedWindow.of({exact}, 1 h)`; Bucket4j: {exact} "
    f"tokens refilled once an hour), then 5 s of load with {connections} connections:",
    "",
    "| path | requests | answered 200 | answered 429 | 200s = the limit |",
    "|---|---:|---:|---:|---|",
]
for m, e in exacts.items():
    lines.append(f"| {m} | {e['requests']:,} | {e['ok']:,} | {e['non_2xx']:,} | {'yes' if e['ok'] == exact else 'NO'} |")
sl = s["sluice"]
lines += [
    "",
    "## Against the targets of issue 11",
    "",
    "| target | result |",
    "|---|---|",
    f"| the filter costs at most 5% of the unfiltered endpoint's throughput | {'met' if sl['throughput_cost'] <= 0.05 else 'missed'}: "
    f"{pct(sl['throughput_cost'])} (Bucket4j {pct(s['bucket4j']['throughput_cost'])}, a filter that does nothing "
    f"{pct(s['noop']['throughput_cost'])}) |",
    f"| at most 50 µs of added p99 (in memory) | {'met' if sl['added_p99_us'] <= 50 else 'missed'}: {sl['added_p99_us']:.0f} µs "
    f"(Bucket4j {s['bucket4j']['added_p99_us']:.0f} µs) |",
    f"| ahead of the peer filter on both | throughput: {'yes' if versus['throughput_ratio'] >= 1 else 'no'} "
    f"({versus['throughput_ratio']:.3f}x Bucket4j's); p99: {'yes' if versus['p99_difference_us'] <= 0 else 'no'} "
    f"({versus['p99_difference_us']:+.0f} µs against Bucket4j's) |",
    f"| the count of 200s matches the limit exactly | {'met' if exacts['sluice']['ok'] == exact else 'missed'}: "
    f"{exacts['sluice']['ok']:,} of {exact:,} (Bucket4j {exacts['bucket4j']['ok']:,}) |",
    "",
]
(out / "ingress.md").write_text("\n".join(lines))
print("\n".join(lines))
