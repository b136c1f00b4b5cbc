#!/usr/bin/env bash
# Fails when the checked-in CRDs under crds/ differ from what the model classes generate, or when
# the Helm chart's copy under charts/warmgate/crds/ differs from crds/.
# Usage: hack/verify-generated.sh            (check; CI)
#        hack/verify-generated.sh --update   (regenerate and copy into crds/ and the chart)
# Settings: MVN (default mvn).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MVN="${MVN:-mvn}"
generated="$WARMGATE_ROOT/operator/target/classes/META-INF/fabric8"
checked_in="$WARMGATE_ROOT/crds"
chart_crds="$WARMGATE_ROOT/charts/warmgate/crds"

log "generating the CRDs from the operator's model classes"
# -am: the operator's model compiles against the contract module, built here rather than taken
# from a local repository that may hold an older one.
(cd "$WARMGATE_ROOT" && "$MVN" -B -q -ntp -pl operator -am process-classes)

if [[ "${1:-}" == "--update" ]]; then
  mkdir -p "$checked_in"
  cp "$generated"/*-v1.yml "$checked_in"/
  mkdir -p "$chart_crds"
  rm -f "$chart_crds"/*.yml
  cp "$checked_in"/*.yml "$chart_crds"/
  log "updated $(ls "$generated"/*-v1.yml | xargs -n1 basename | tr '\n' ' ')in crds/ and charts/warmgate/crds/"
  exit 0
fi

status=0
for file in "$generated"/*-v1.yml; do
  name="$(basename "$file")"
  if ! diff -u "$checked_in/$name" "$file"; then
    status=1
  fi
done
if [[ $status -ne 0 ]]; then
  die "crds/ is out of date with the model classes; regenerate with: hack/verify-generated.sh --update"
fi
log "crds/ matches the model classes"

if ! diff -ru "$checked_in" "$chart_crds"; then
  die "charts/warmgate/crds/ differs from crds/; copy with: hack/verify-generated.sh --update"
fi
log "charts/warmgate/crds/ matches crds/"
