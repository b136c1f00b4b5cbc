#!/usr/bin/env python3
"""Checks the metric tables of docs/runbook.md against the meters the code registers.

The meters are read from the main sources of the shipped modules (MODULES): each string literal
that names one
("warmgate.origin.keys"), and the stream gateway's counters, whose names GatewayMetrics builds as
"warmgate.gateway." + a literal. A meter is documented when a table row of the runbook names it
in Prometheus's form: dots turned into underscores, with or without a unit or type suffix
(warmgate_origin_keys_total, warmgate_load_latency_seconds). Fails, naming each, when the code
registers a meter no row names, or a row names a metric no code registers, so that the runbook
cannot drift from the code. Usage: hack/check-metric-docs.py [repository directory].
"""
import glob
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
RUNBOOK = os.path.join(ROOT, "docs", "runbook.md")
LITERAL = re.compile(r'"(warmgate(?:\.[a-z0-9]+)+)"')
GATEWAY_COUNTER = re.compile(r'counter\(registry, "([a-z0-9.]+)"')
ROW_METRIC = re.compile(r"`(warmgate_[a-z0-9_]+)`")
NOT_METERS = {"warmgate.io"}
MODULES = ["contract", "valkey-client", "cache-agent", "spanner-origin", "operator", "stream-gateway"]


def meters():
    """Dotted meter names registered by main code, with the file of each."""
    found = {}
    files = [f for module in MODULES for f in glob.glob(
        os.path.join(ROOT, module, "src", "main", "java", "**", "*.java"), recursive=True)]
    for f in files:
        with open(f, encoding="utf-8") as source:
            text = source.read()
        for name in LITERAL.findall(text):
            if name not in NOT_METERS:
                found.setdefault(name, os.path.relpath(f, ROOT))
        if '"warmgate.gateway." + name' in text:
            for part in GATEWAY_COUNTER.findall(text):
                found.setdefault("warmgate.gateway." + part, os.path.relpath(f, ROOT))
    return found


def documented():
    """Metric names in the first column of the runbook's tables."""
    names = set()
    with open(RUNBOOK, encoding="utf-8") as runbook:
        for line in runbook:
            if line.startswith("| `warmgate_"):
                first_column = line.split("|")[1]
                names.update(ROW_METRIC.findall(first_column))
    return names


def names(metric, meter):
    base = meter.replace(".", "_")
    return metric == base or metric.startswith(base + "_")


def main():
    code, doc = meters(), documented()
    undocumented = sorted(m for m in code if not any(names(d, m) for d in doc))
    unregistered = sorted(d for d in doc if not any(names(d, m) for m in code))
    for m in undocumented:
        print(f"{code[m]} registers {m}, which no table of docs/runbook.md names: add a row "
              f"for {m.replace('.', '_')} (with its unit or _total suffix)", file=sys.stderr)
    for d in unregistered:
        print(f"docs/runbook.md names {d}, which no main code registers: remove or rename its "
              f"row", file=sys.stderr)
    if undocumented or unregistered:
        return 1
    print(f"docs/runbook.md: its tables name the {len(code)} meters the code registers, "
          f"and no other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
