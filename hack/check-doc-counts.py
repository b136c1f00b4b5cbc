#!/usr/bin/env python3
"""Checks the test counts docs/bad-input.md gives against the test reports of the last run.

Each heading of docs/bad-input.md names the test classes that try its inputs, each with its number
of cases, such as (`operator/.../gate/MalformedValkeyIT` 11, `HotSetForecastTest` 12 of its 19:
12 of the class's 19 cases try bad input, and 19 is what is checked). This reads
the JUnit XML reports surefire and failsafe wrote (target/surefire-reports, target/failsafe-reports,
nested classes included) and fails, naming the heading, when a count differs, so that the document
cannot drift from the tests. A class named without its module is looked up in the module of the
heading's first class. Run after `mvn verify` (hack/test.sh does), optionally with the repository's
directory as argument; exits 1 on a difference, 2 when a named class has no report.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "bad-input.md")
# `Class` N, or `Class` N of its M: N of the class's M cases try bad input (M is checked).
ENTRY = re.compile(r"`([^`]+)`,? (\d+)(?: of its (\d+))?")


def reports(module, sub_path):
    """Report files of the class `sub_path` (such as gate/MalformedValkeyIT) in `module`."""
    dotted = sub_path.replace("/", ".")
    found = []
    for directory in ("surefire-reports", "failsafe-reports"):
        pattern = os.path.join(ROOT, module, "target", directory, "TEST-*.xml")
        for f in glob.glob(pattern):
            name = os.path.basename(f)[len("TEST-"):-len(".xml")]
            outer = name.split("$")[0]
            if outer == dotted or outer.endswith("." + dotted):
                found.append(f)
    return found


def cases(files):
    return sum(1 for f in files for _ in ET.parse(f).getroot().iter("testcase"))


def main():
    problems, missing, checked = [], [], 0
    with open(DOC, encoding="utf-8") as doc:
        text = doc.read()
    headings = [line.strip() for line in text.splitlines() if line.startswith("## ")]
    # The introduction's total is the sum of the headings' counts.
    total = re.search(r"one row per test case \((\d+)\)", text)
    stated = sum(int(n) for h in headings for _, n, _ in ENTRY.findall(h))
    if total is None or int(total.group(1)) != stated:
        problems.append(f"the introduction's total of test cases is "
                        f"{total.group(1) if total else 'missing'}, but the headings add up to "
                        f"{stated}; write ({stated})")
    for heading in headings:
        module = None
        for named, count, of_all in ENTRY.findall(heading):
            count = of_all or count
            if "/.../" in named:
                module, sub_path = named.split("/.../", 1)
            else:
                sub_path = named
            if module is None:
                continue
            files = reports(module, sub_path)
            if not files:
                missing.append(f"{heading}: no report of {named} under {module}/target")
                continue
            checked += 1
            actual = cases(files)
            if actual != int(count):
                problems.append(f"{heading}: `{named}` has {actual} cases in its report, "
                                f"not {count}; write {actual} in docs/bad-input.md")
    for line in missing + problems:
        print(line, file=sys.stderr)
    if problems:
        return 1
    if missing:
        return 2
    print(f"docs/bad-input.md: the case counts of {checked} test classes match their reports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
