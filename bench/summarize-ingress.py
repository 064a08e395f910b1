#!/usr/bin/env python3
"""Reads the wrk outputs of bench/run-ingress.sh and writes ingress.json and ingress.md."""
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True
from ingress_wrk import MODES, beyond_noop, figures, method, path_table, pct, throughput_target  # noqa: E402

raw, out = Path(sys.argv[1]), Path(sys.argv[2])
rounds, seconds, connections, exact = (int(x) for x in sys.argv[3:7])
commit, measured, dirty, jdk, wrk, machine = sys.argv[7:13]
busy, single, summary, versus, exacts = figures(raw, rounds)
result = {
    "run": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": commit, "measured_commit": measured,
    "uncommitted": dirty, "jdk": jdk, "wrk": wrk, "machine": machine, "rounds": rounds, "seconds": seconds,
    "connections": connections, "summary": summary, "sluice_vs_bucket4j": versus, "busy": busy,
    "one_connection": single, "exact_limit": exact, "exact": exacts,
}
(out / "ingress.json").write_text(json.dumps(result, indent=2) + "\n")


s = summary
lines = [
    "# Ingress filter: its cost per request, against no filter and against Bucket4j",
    "",
    "Reproduce: `bench/run-ingress.sh` (needs `wrk`, a Debian package). It builds the bench jar, starts "
    "`dev.sluice.bench.IngressServer` (Jetty 12, one endpoint with a 2-byte body under five paths of one process) and "
    "loads each path with wrk over loopback; `bench/summarize-ingress.py` writes this file and `ingress.json`.",
    "",
    f"Run: {result['run']}, commit `{commit}` (sluice-core and sluice-http as of `{measured}`; uncommitted changes in "
    f"them: {dirty}); {jdk}, heap 1 GB; {wrk}; {machine}. wrk and the server share the 2 cores with other tenants.",
    "",
    "Paths, each limit keyed by the client address (`getRemoteAddr`, one client here), with a limit no load reaches (a "
    "token bucket of 10^9 a second: every request is allowed, so the whole cost of the filter is measured):",
    "- `plain`: no filter;",
    "- `noop`: a filter that only calls `chain.doFilter`: what any servlet filter costs in Jetty;",
    "- `fields`: a filter that only sets the two fields Sluice's filter sets here, with the same values, and passes "
    "the request on: what answering with the fields costs Jetty and wrk, apart from deciding;",
    "- `sluice`: `SluiceRateLimitFilter`, one rule, the in-memory engine; every response carries `RateLimit-Policy` "
    "and `RateLimit`;",
    "- `bucket4j`: Bucket4j 8.17 (`bucket4j_jdk17-core`) in a filter of its Spring Boot starter's shape (a bucket per "
    "key in a `ConcurrentHashMap`, `X-Rate-Limit-Remaining` on every response). The starter itself needs Spring Boot: "
    "it is measured beside Sluice's filter in `ingress-boot.md` (`bench/run-ingress-boot.sh`).",
    "",
    method(rounds, seconds, connections),
    "",
]
lines += path_table(s, connections)
lines += [
    "",
    beyond_noop(s),
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
    throughput_target(s),
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
