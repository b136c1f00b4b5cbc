#!/usr/bin/env bash
# Fails when the checked-in CRDs under crds/ differ from what the model classes generate.
# Usage: hack/verify-generated.sh            (check; CI)
#        hack/verify-generated.sh --update   (regenerate and copy into crds/)
# Settings: MVN (default mvn).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MVN="${MVN:-mvn}"
generated="$WARMGATE_ROOT/operator/target/classes/META-INF/fabric8"
checked_in="$WARMGATE_ROOT/crds"

log "generating the CRDs from the operator's model classes"
(cd "$WARMGATE_ROOT" && "$MVN" -B -q -ntp -pl operator process-classes)

if [[ "${1:-}" == "--update" ]]; then
  mkdir -p "$checked_in"
  cp "$generated"/*-v1.yml "$checked_in"/
  log "updated $(ls "$generated"/*-v1.yml | xargs -n1 basename | tr '\n' ' ')in crds/"
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
