#!/usr/bin/env bash
# Prints one line per test tier (tests, failures, errors, skipped, seconds), read from the JUnit XML
# reports surefire and failsafe wrote under every module's target/:
#   unit         target/surefire-reports/TEST-*.xml        (*Test)
#   integration  target/failsafe-reports/TEST-*.xml        (*IT)
#   e2e-kwok     target/failsafe-reports-e2e/TEST-*.xml    (*E2E on the local kwok cluster)
#   e2e-kind     target/failsafe-reports-kind/TEST-*.xml   (hack/kind-e2e.sh)
# Tests count the reports' testcases; seconds add up the test classes' times. Usage:
#   hack/test-summary.sh [--since FILE]   only reports written after FILE was (hack/test.sh: its start)
# Exits 1 if a tier has failures or errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

since=""
case "${1:-}" in
  "") ;;
  --since) since="${2:?--since needs a file}" ;;
  *) die "usage: hack/test-summary.sh [--since FILE]" ;;
esac
[[ -z "$since" || -e "$since" ]] || die "--since $since: no such file"

python3 - "$WARMGATE_ROOT" "$since" <<'PY'
import glob, os, sys
import xml.etree.ElementTree as ET

root, since = sys.argv[1], sys.argv[2]
after = os.path.getmtime(since) if since else None
tiers = [("unit", "surefire-reports"), ("integration", "failsafe-reports"),
         ("e2e-kwok", "failsafe-reports-e2e"), ("e2e-kind", "failsafe-reports-kind")]
failed = False
for tier, directory in tiers:
    files = sorted(set(glob.glob(os.path.join(root, "**", "target", directory, "TEST-*.xml"),
                                 recursive=True)))
    files = [f for f in files if "/.warmgate/" not in f and (after is None or os.path.getmtime(f) >= after)]
    if not files:
        print(f"tier {tier:<11}: no reports (not run){' since ' + since if since else ''}")
        continue
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    seconds = 0.0
    for f in files:
        suite = ET.parse(f).getroot()
        # Count the testcases: the testsuite's own counts are 0 for a @ParameterizedClass.
        for case in suite.iter("testcase"):
            total["tests"] += 1
            for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
                if case.find(tag) is not None:
                    total[key] += 1
        seconds += float(suite.get("time", "0").replace(",", ""))
    failed |= total["failures"] + total["errors"] > 0
    print(f"tier {tier:<11}: {total['tests']} tests, {total['failures']} failures, "
          f"{total['errors']} errors, {total['skipped']} skipped, {seconds:.1f} s "
          f"({len(files)} classes, */target/{directory})")
sys.exit(1 if failed else 0)
PY
