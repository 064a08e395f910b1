#!/usr/bin/env python3
"""Reads the wrk outputs of bench/run-ingress-boot.sh and writes ingress-boot.json and ingress-boot.md."""
import json
import re
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

sys.dont_write_bytecode = True
from ingress_wrk import MODES, beyond_noop, figures, method, path_table, pct, throughput_target  # noqa: E402

raw, out = Path(sys.argv[1]), Path(sys.argv[2])
rounds, seconds, connections, exact = (int(x) for x in sys.argv[3:7])
commit, measured, dirty, jdk, wrk, machine, jar = sys.argv[7:14]


def versions(path):
    """The versions of the libraries measured, from the names of the jars in the application's BOOT-INF/lib."""
    names = [Path(n).name for n in zipfile.ZipFile(path).namelist() if n.startswith("BOOT-INF/lib/")]
    found = {}
    for key, artifact in [("spring_boot", "spring-boot"), ("bucket4j_spring_boot_starter", "bucket4j-spring-boot-starter"),
                          ("bucket4j_core", "bucket4j-core"), ("bucket4j_jcache", "bucket4j-jcache"),
                          ("tomcat", "tomcat-embed-core"), ("caffeine_jcache", "jcache"), ("caffeine", "caffeine")]:
        for n in names:
            m = re.fullmatch(re.escape(artifact) + r"-(\d[\w.\-]*)\.jar", n)
            if m:
                found[key] = m.group(1)
    return found


lib = versions(jar)
busy, single, summary, versus, exacts = figures(raw, rounds)
result = {
    "run": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": commit, "measured_commit": measured,
    "uncommitted": dirty, "jdk": jdk, "wrk": wrk, "machine": machine, "versions": lib, "rounds": rounds,
    "seconds": seconds, "connections": connections, "summary": summary, "sluice_vs_bucket4j": versus, "busy": busy,
    "one_connection": single, "exact_limit": exact, "exact": exacts,
}
(out / "ingress-boot.json").write_text(json.dumps(result, indent=2) + "\n")

s = summary
sl, b4 = s["sluice"], s["bucket4j"]
command = "flock /tmp/sluice-build.lock bench/run-ingress-boot.sh"
if (rounds, seconds, connections) != (12, 4, 32):
    command += f" --rounds {rounds} --seconds {seconds} --connections {connections}"
lines = [
    "# Ingress filter in Spring Boot: Sluice's filter against the Bucket4j Spring Boot starter",
    "",
    f"Reproduce: `{command}` (needs `wrk`, a Debian package; the lock only keeps builds of others on this shared "
    "machine off the cores while it runs). It builds `sluice-bench-boot` (a Spring Boot application, "
    "`sluice-bench-boot/target/bench-boot.jar`), starts it on Tomcat and loads its paths with wrk over loopback; "
    "`bench/summarize-ingress-boot.py` writes this file and `ingress-boot.json`.",
    "",
    f"Run: {result['run']}, commit `{commit}` (sluice-core and sluice-http as of `{measured}`; uncommitted changes in "
    f"them: {dirty}); {jdk}, heap 1 GB; Spring Boot {lib.get('spring_boot', '?')} on Tomcat {lib.get('tomcat', '?')}; "
    f"Bucket4j Spring Boot starter {lib.get('bucket4j_spring_boot_starter', '?')} (bucket4j-core "
    f"{lib.get('bucket4j_core', '?')}, bucket4j-jcache {lib.get('bucket4j_jcache', '?')}) on Caffeine's JCache "
    f"{lib.get('caffeine_jcache', '?')}; {wrk}; {machine}. wrk and the server share the 2 cores with other tenants.",
    "",
    "One application, one endpoint (`@GetMapping`, a 2-byte `text/plain` body) under five paths; each limit keyed by "
    "the client address (one client here), with a limit no load reaches (a token bucket of 10^9 a second: every "
    "request is allowed, so the whole cost of the filter is measured):",
    "- `plain`: no limit;",
    "- `noop`: a filter (a `FilterRegistrationBean` on `/noop/*`) that only calls `chain.doFilter`: what one more "
    "servlet filter costs here;",
    "- `fields`: a filter that only sets the two fields Sluice's filter sets here, with the same values "
    "(`RateLimit-Policy: \"bench\";q=1000000000;w=1`, `RateLimit: \"bench\";r=999999999;t=0`), and passes the request "
    "on: what answering with the fields costs Tomcat, Spring MVC and wrk, apart from deciding;",
    "- `sluice`: `SluiceRateLimitFilter` in a `FilterRegistrationBean` on `/sluice/*`, one `IngressRule`, the "
    "in-memory engine; every response carries `RateLimit-Policy` and `RateLimit`;",
    "- `bucket4j`: the Bucket4j starter's own servlet filter from properties (`bucket4j.filters[0]`: url "
    "`/bucket4j/.*`, `cache-key: getRemoteAddr()`, one bandwidth), its buckets in the JCache cache `buckets` "
    "(`spring.cache.cache-names`, Caffeine's provider), every response carrying `X-Rate-Limit-Remaining`. The "
    "cache stores by reference (a `MutableConfiguration` bean with `setStoreByValue(false)`): JCache's default, by "
    "value, would serialize the bucket's state on every request.",
    "",
    "Both filters are ordered at `HIGHEST_PRECEDENCE + 10` (the starter's default). The starter registers its filter "
    "for every path and skips those its url does not match (a regular expression on the URI), so every path, "
    "`plain` included, pays that check; Tomcat keeps connections open without a limit of requests "
    "(`server.tomcat.max-keep-alive-requests: -1`), so that no path pays reconnections.",
    "",
    method(rounds, seconds, connections),
    "",
]
lines += path_table(s, connections)
lines += [
    "",
    beyond_noop(s),
    "",
    f"Every round, in the order run (requests/s with {connections} connections; p50 and p99 with one connection, µs):",
    "",
    "| round | " + " | ".join(f"{m} req/s" for m in MODES) + " | " + " | ".join(f"{m} p50 / p99" for m in MODES) + " |",
    "|---:|" + "---:|" * (2 * len(MODES)),
]
for r in range(rounds):
    lines.append(
        f"| {r + 1} | " + " | ".join(f"{busy[m][r]['requests_per_s']:,.0f}" for m in MODES) + " | "
        + " | ".join(f"{single[m][r]['p50_ms'] * 1000:.0f} / {single[m][r]['p99_ms'] * 1000:.0f}" for m in MODES)
        + " |")
lines += [
    "",
    f"**Exact limit**: {exact} requests allowed per hour (Sluice: `FixedWindow.of({exact}, 1 h)`; Bucket4j: capacity "
    f"{exact}, refilled intervally with {exact} once an hour), in a new process, then 5 s of load with "
    f"{connections} connections on each path:",
    "",
    "| path | requests | answered 200 | answered 429 | 200s = the limit |",
    "|---|---:|---:|---:|---|",
]
for m, e in exacts.items():
    lines.append(f"| {m} | {e['requests']:,} | {e['ok']:,} | {e['non_2xx']:,} | {'yes' if e['ok'] == exact else 'NO'} |")


def verdict(ok):
    return "met" if ok else "missed"


ratio, p99_vs = versus["throughput_ratio"], versus["p99_difference_us"]
lines += [
    "",
    "## Against the targets",
    "",
    "| target | result |",
    "|---|---|",
    throughput_target(s),
    f"| at most 50 µs of added p99 | {verdict(sl['added_p99_us'] <= 50)}: {sl['added_p99_us']:.0f} µs "
    f"(Bucket4j {b4['added_p99_us']:.0f} µs, a filter that does nothing {s['noop']['added_p99_us']:.0f} µs) |",
    f"| ahead of the peer on throughput (Sluice/Bucket4j > 1, median of the rounds' ratios) | {verdict(ratio > 1)}: "
    f"{ratio:.3f}x |",
    f"| ahead of the peer on p99 (Sluice's ≤ Bucket4j's, median of the rounds' differences) | {verdict(p99_vs <= 0)}: "
    f"{p99_vs:+.0f} µs |",
    f"| the count of 200s matches the limit exactly | {verdict(all(e['ok'] == exact for e in exacts.values()))}: Sluice "
    f"{exacts['sluice']['ok']:,}, Bucket4j {exacts['bucket4j']['ok']:,}, of {exact:,} |",
    "",
]
(out / "ingress-boot.md").write_text("\n".join(lines))
print("\n".join(lines))
