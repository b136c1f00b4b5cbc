#!/usr/bin/env bash
# Prints one line per test tier (tests, failures, errors, skipped, seconds), read from the JUnit XML
# reports surefire and failsafe wrote under every module's target/:
#   unit         target/surefire-reports/TEST-*.xml        (*Test)
#   integration  target/failsafe-reports/TEST-*.xml        (*IT)
#   e2e-kwok     target/failsafe-reports-e2e/TEST-*.xml    (*E2E on the local kwok cluster)
#   e2e-kind     target/failsafe-reports-kind/TEST-*.xml   (hack/kind-e2e.sh)
# Tests count the reports' testcases; seconds add up the test classes' times. Usage:
#   hack/test-summary.sh [--since FILE] [--classes N]
#     --since FILE   only reports written after FILE was (hack/test.sh: its start)
#     --classes N    also the N slowest test classes of each tier, with their seconds and module
# Then one line "FAILED <tier>: <class>.<test> (failure|error)" per failed test.
# Exits 1 if a tier has failures or errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

since="" classes=0
while (($#)); do
  case "$1" in
    --since) since="${2:?--since needs a file}"; shift 2 ;;
    --classes) classes="${2:?--classes needs a number}"; shift 2 ;;
    *) die "usage: hack/test-summary.sh [--since FILE] [--classes N]" ;;
  esac
done
[[ "$classes" =~ ^[0-9]+$ ]] || die "--classes $classes: not a whole number"
[[ -z "$since" || -e "$since" ]] || die "--since $since: no such file"

python3 - "$WARMGATE_ROOT" "$since" "$classes" <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET

root, since, slowest = sys.argv[1], sys.argv[2], int(sys.argv[3])
after = os.path.getmtime(since) if since else None
tiers = [("unit", "surefire-reports"), ("integration", "failsafe-reports"),
         ("e2e-kwok", "failsafe-reports-e2e"), ("e2e-kind", "failsafe-reports-kind")]
failed = False
broken = []
for tier, directory in tiers:
    files = sorted(set(glob.glob(os.path.join(root, "**", "target", directory, "TEST-*.xml"),
                                 recursive=True)))
    files = [f for f in files if "/.warmgate/" not in f and (after is None or os.path.getmtime(f) >= after)]
    if not files:
        print(f"tier {tier:<11}: no reports (not run){' since ' + since if since else ''}")
        continue
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    times = []
    for f in files:
        suite = ET.parse(f).getroot()
        # Count the testcases: the testsuite's own counts are 0 for a @ParameterizedClass.
        for case in suite.iter("testcase"):
            total["tests"] += 1
            for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
                if case.find(tag) is not None:
                    total[key] += 1
                    if key != "skipped":
                        broken.append(f"{tier}: {case.get('classname', '?')}.{case.get('name', '?')} ({tag})")
        took = float(suite.get("time", "0").replace(",", ""))
        seconds += took
        module = os.path.relpath(f, root).split("/target/")[0]
        times.append((took, suite.get("name", "?").rsplit(".", 1)[-1], module))
    failed |= total["failures"] + total["errors"] > 0
    print(f"tier {tier:<11}: {total['tests']} tests, {total['failures']} failures, "
          f"{total['errors']} errors, {total['skipped']} skipped, {seconds:.1f} s "
          f"({len(files)} classes, */target/{directory})")
    for took, name, module in sorted(times, reverse=True)[:slowest]:
        print(f"    {took:8.1f} s  {name} ({module})")
for line in broken:
    print(f"FAILED {line}")
sys.exit(1 if failed else 0)
PY
