"""What bench/summarize-ingress.py and bench/summarize-ingress-boot.py share: wrk's outputs read, and medians of
each round's own figures (a round's paths are loaded back to back, under the same load from other tenants)."""
import re
import statistics

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def latency(text, pct):
    """A percentile of wrk's --latency distribution, in ms, or None."""
    m = re.search(r"^\s+%s%%\s+([\d.]+)(us|ms|s)$" % pct, text, re.M)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def parse(path):
    """One wrk output: requests, the non-2xx ones, requests/s, p50 and p99 (ms)."""
    text = path.read_text()
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return {
        "requests": int(re.search(r"(\d+) requests in", text).group(1)),
        "non_2xx": int(non2xx.group(1)) if non2xx else 0,
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)),
        "p50_ms": latency(text, 50),
        "p99_ms": latency(text, 99),
    }


def median_of_rounds(series, mode, base, figure):
    """The median over the rounds of figure(mode's run, base's run of the same round)."""
    return statistics.median(figure(a, b) for a, b in zip(series[mode], series[base]))


def med(series, mode, key):
    """The median over the rounds of one figure of one mode."""
    return statistics.median(run[key] for run in series[mode])


MODES = ["plain", "noop", "fields", "sluice", "bucket4j"]
FILTERS = ["noop", "fields", "sluice", "bucket4j"]


def pct(x):
    """A fraction as a percentage with one decimal."""
    return f"{x * 100:.1f}%"


def figures(raw, rounds):
    """wrk's outputs in raw (open-MODE-ROUND.txt, one-MODE-ROUND.txt, exact-MODE.txt, as bench/ingress-load.sh
    leaves them) read: every run with C connections (busy) and with one (single), by mode; the summary by mode
    (medians over the rounds; for a filter, its costs as medians of the rounds' own differences against plain and
    against noop); Sluice against Bucket4j (per-round ratio of requests/s, difference of p99 in µs, medians); the
    exact-limit runs, with their 200s ("ok")."""
    busy = {m: [parse(raw / f"open-{m}-{r}.txt") for r in range(1, rounds + 1)] for m in MODES}
    ticks = int((raw / "clock-ticks.txt").read_text())
    for m in MODES:
        for r, run in enumerate(busy[m], start=1):
            cpu_s = int((raw / f"cpu-{m}-{r}.txt").read_text()) / ticks
            run["server_cpu_us_per_request"] = cpu_s * 1e6 / run["requests"]
    single = {m: [parse(raw / f"one-{m}-{r}.txt") for r in range(1, rounds + 1)] for m in MODES}

    def cost(mode, base="plain"):
        return median_of_rounds(busy, mode, base, lambda a, b: 1 - a["requests_per_s"] / b["requests_per_s"])

    def cpu_cost(mode, base="plain"):
        key = "server_cpu_us_per_request"
        return median_of_rounds(busy, mode, base, lambda a, b: a[key] / b[key] - 1)

    def added_us(mode, pct, base="plain"):
        key = f"p{pct}_ms"
        return median_of_rounds(single, mode, base, lambda a, b: (a[key] - b[key]) * 1000)

    exacts = {m: parse(raw / f"exact-{m}.txt") for m in ("sluice", "bucket4j")}
    for e in exacts.values():
        e["ok"] = e["requests"] - e["non_2xx"]
    summary = {
        m: {
            "requests_per_s": med(busy, m, "requests_per_s"),
            "p50_ms_one_connection": med(single, m, "p50_ms"),
            "p99_ms_one_connection": med(single, m, "p99_ms"),
            "p99_ms_busy": med(busy, m, "p99_ms"),
            "server_cpu_us_per_request": med(busy, m, "server_cpu_us_per_request"),
        }
        for m in MODES
    }
    for m in FILTERS:
        summary[m].update(
            throughput_cost=cost(m), added_p50_us=added_us(m, 50), added_p99_us=added_us(m, 99),
            server_cpu_cost=cpu_cost(m), server_cpu_cost_beyond_noop=cpu_cost(m, "noop"),
            throughput_cost_beyond_noop=cost(m, "noop"), added_p99_us_beyond_noop=added_us(m, 99, "noop"))
    versus = {
        "throughput_ratio": median_of_rounds(busy, "sluice", "bucket4j", lambda a, b: a["requests_per_s"] / b["requests_per_s"]),
        "p99_difference_us": added_us("sluice", 99, "bucket4j"),
    }
    return busy, single, summary, versus, exacts


def path_table(summary, connections):
    """The table of paths, header and rows: requests/s, cost against plain, server CPU a request and its cost, p50
    and p99 with one connection, added."""
    rows = [
        f"| path | requests/s, {connections} connections | throughput cost vs plain | server CPU a request (µs) | "
        "server CPU cost vs plain | p50, 1 connection (µs) | p99, 1 connection (µs) | added p50 vs plain (µs) | "
        "added p99 vs plain (µs) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in MODES:
        row = summary[m]
        filtered = m != "plain"
        c = pct(row["throughput_cost"]) if filtered else ""
        a50 = f"{row['added_p50_us']:.0f}" if filtered else ""
        a99 = f"{row['added_p99_us']:.0f}" if filtered else ""
        cpu = pct(row["server_cpu_cost"]) if filtered else ""
        rows.append(
            f"| {m} | {row['requests_per_s']:,.0f} | {c} | {row['server_cpu_us_per_request']:.1f} | {cpu} | "
            f"{row['p50_ms_one_connection'] * 1000:.0f} | {row['p99_ms_one_connection'] * 1000:.0f} | {a50} | {a99} |")
    return rows


def throughput_target(summary):
    """The row of the targets' table for "the filter costs at most 5% of the unfiltered endpoint's throughput"."""
    sl, b4, noop = summary["sluice"], summary["bucket4j"], summary["noop"]
    return (f"| the filter costs at most 5% of the unfiltered endpoint's throughput | "
            f"{'met' if sl['throughput_cost'] <= 0.05 else 'missed'}: {pct(sl['throughput_cost'])} (Bucket4j "
            f"{pct(b4['throughput_cost'])}, a filter that does nothing {pct(noop['throughput_cost'])}); the server's "
            f"CPU time a request {pct(sl['server_cpu_cost'])} (Bucket4j {pct(b4['server_cpu_cost'])}, nothing-doing "
            f"filter {pct(noop['server_cpu_cost'])}) |")


def beyond_noop(summary):
    """What the rate limiting itself costs: each limiter's cost against the filter that does nothing."""
    sl, b4 = summary["sluice"], summary["bucket4j"]
    return (f"Beyond the `noop` filter (the rate limiting itself): Sluice {pct(sl['throughput_cost_beyond_noop'])} of "
            f"throughput, {pct(sl['server_cpu_cost_beyond_noop'])} of the server's CPU time a request and "
            f"{sl['added_p99_us_beyond_noop']:.0f} µs of p99; Bucket4j {pct(b4['throughput_cost_beyond_noop'])}, "
            f"{pct(b4['server_cpu_cost_beyond_noop'])} and {b4['added_p99_us_beyond_noop']:.0f} µs.")


def method(rounds, seconds, connections):
    """The paragraph on how the paths were loaded and how the figures are taken."""
    return (
        f"{rounds} rounds; in each, every path in turn (the order rotated each round): {seconds} s of wrk (1 thread) "
        f"with {connections} connections for throughput, then {seconds} s with one connection for latency (a closed "
        "loop: each request's own time, without queueing behind the others), after a 5 s warm-up of each path. Other "
        "tenants move the absolute figures by tens of percent from one round to the next, so costs, added latencies "
        "and the comparison with Bucket4j are the medians of each round's own differences; the other cells are "
        "medians over the rounds. The server's CPU time a request is its process's user and system time (from "
        "/proc) over each throughput run, divided by the requests answered: it leaves out wrk, which shares the "
        "cores and reads every response header, and moves far less with the other tenants than requests a second.")
