#!/usr/bin/env python3
"""Summarizes a PIT run of the mutation profile as Markdown: the score, and the mutants that were not
detected, grouped by class, each with its line of source.

Usage: scripts/mutation-summary.py [mutations.xml] > summary.md
(default: sluice-testkit/target/pit-reports/mutations.xml, written by ./mvnw -Pmutation verify)
"""
import collections
import os
import sys
import xml.etree.ElementTree as ET

DETECTED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR"}
NOT_DETECTED = {"SURVIVED", "NO_COVERAGE"}
SOURCES = ["sluice-core/src/main/java"]


def source_line(cls, source_file, line):
    package = cls.rsplit(".", 1)[0].replace(".", "/")
    for root in SOURCES:
        path = os.path.join(root, package, source_file)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            if 0 < line <= len(lines):
                return lines[line - 1].strip()
    return ""


def main():
    report = sys.argv[1] if len(sys.argv) > 1 else "sluice-testkit/target/pit-reports/mutations.xml"
    mutations = ET.parse(report).getroot()
    by_status = collections.Counter()
    missed = collections.defaultdict(list)
    per_class = collections.defaultdict(collections.Counter)
    for m in mutations:
        status = m.get("status")
        cls = m.findtext("mutatedClass")
        outer = cls.split("$")[0]
        by_status[status] += 1
        per_class[outer][status] += 1
        if status in NOT_DETECTED:
            line = int(m.findtext("lineNumber"))
            description = m.findtext("description").split(" for dev/")[0]
            missed[outer].append((line, m.findtext("mutatedMethod"), description, status,
                                  source_line(cls, m.findtext("sourceFile"), line)))
    total = sum(by_status.values())
    detected = sum(by_status[s] for s in DETECTED)
    covered = total - by_status["NO_COVERAGE"]
    print(f"- mutants: {total:,}; detected: {detected:,} (**{100.0 * detected / total:.1f}%**)")
    print(f"- covered by a test: {covered:,}; detected among them: {100.0 * detected / max(covered, 1):.1f}%")
    print("- by outcome: " + ", ".join(f"{s} {n:,}" for s, n in sorted(by_status.items())))
    print()
    print("| class | mutants | not detected | detected |")
    print("|---|---:|---:|---:|")
    for cls in sorted(per_class):
        c = per_class[cls]
        n = sum(c.values())
        miss = sum(c[s] for s in NOT_DETECTED)
        print(f"| `{cls.removeprefix('dev.sluice.internal.')}` | {n} | {miss} | {100.0 * (n - miss) / n:.0f}% |")
    print()
    for cls in sorted(missed):
        print(f"### `{cls.removeprefix('dev.sluice.internal.')}` ({len(missed[cls])})")
        print()
        for line, method, description, status, text in sorted(missed[cls]):
            note = " (no test reaches it)" if status == "NO_COVERAGE" else ""
            code = f": `{text}`" if text else ""
            print(f"- {line} `{method}`: {description}{note}{code}")
        print()


if __name__ == "__main__":
    main()
