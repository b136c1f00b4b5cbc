#!/usr/bin/env bash
# Builds the container images with Jib in one Maven run and sends them to a registry, to tarballs or
# to a Docker engine; then prints each image's reference and the chart values that use it.
# Run hack/image.sh --help for the options. Settings: MVN_ARGS (more Maven arguments, e.g. -o to
# build offline, -Djib.allowInsecureRegistries=true for a registry served over plain HTTP).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# image name (the --only spelling) -> module directory.
declare -A MODULE=([operator]=operator [deal-service]=examples/deal-service
  [stream-gateway]=stream-gateway)
# image name -> the chart's values key of its image ("" = not a chart image).
declare -A CHART_KEY=([operator]=image [deal-service]="" [stream-gateway]=streamGateway.image)
ALL=(operator deal-service stream-gateway)

usage() {
  cat <<EOF
Usage: hack/image.sh (--registry PREFIX | --tar DIR | --docker) [options]

Builds the warmgate images with Jib in one Maven run (package -DskipTests, the modules they need
included) and prints each image's reference and the Helm values that install it.

Where the images go (exactly one):
  --registry PREFIX  push <PREFIX>/<name>:<tag> (jib:build), e.g. registry.example.com/team;
                     credentials come from the Docker config or credential helpers
  --tar DIR          write DIR/<name>.tar per image (jib:buildTar), for docker load,
                     kind load image-archive or another tool's push; named warmgate/<name>:<tag>
  --docker           load warmgate/<name>:<tag> into the local Docker engine (jib:dockerBuild)

Options:
  --tag TAG          image tag (default: $DEFAULT_TAG, the pom's warmgate.image.tag); the chart's
                     default tag is its appVersion, so the script prints image.tag to set
  --base IMAGE       base image (default: $DEFAULT_BASE, the pom's warmgate.image.base);
                     offline: docker://IMAGE (from the Docker engine), tar:///path/image.tar,
                     or scratch (no Java: only for inspecting the layers)
  --only LIST        comma-separated subset of: ${ALL[*]} (default: all)
  -h, --help         this text

Image names: operator -> $(image_name operator), deal-service -> $(image_name deal-service),
stream-gateway -> $(image_name stream-gateway).
Settings: MVN_ARGS (more Maven arguments, e.g. -o to build offline).
EOF
}

# pom_property FILE NAME: the value of <NAME> in FILE's first occurrence.
pom_property() {
  sed -n "s:.*<$2>\(.*\)</$2>.*:\1:p" "$1" | head -1
}

image_name() {
  pom_property "$WARMGATE_ROOT/${MODULE[$1]}/pom.xml" warmgate.image.name
}

DEFAULT_TAG="$(pom_property "$WARMGATE_ROOT/pom.xml" warmgate.image.tag)"
DEFAULT_BASE="$(pom_property "$WARMGATE_ROOT/pom.xml" warmgate.image.base)"
DEFAULT_PREFIX="$(pom_property "$WARMGATE_ROOT/pom.xml" warmgate.image.prefix)"

MODE="" PREFIX="$DEFAULT_PREFIX" TAR_DIR="" TAG="$DEFAULT_TAG" BASE="$DEFAULT_BASE"
ONLY=("${ALL[@]}")

set_mode() {
  [[ -z "$MODE" || "$MODE" == "$1" ]] \
    || die "--$MODE and --$1 both given: choose one of --registry, --tar, --docker"
  MODE="$1"
}

parse() {
  local opt value
  while (($#)); do
    opt="$1"; shift
    if [[ "$opt" == --*=* ]]; then set -- "${opt#*=}" "$@"; opt="${opt%%=*}"; fi
    case "$opt" in
      -h|--help) usage; exit 0 ;;
      --docker) set_mode docker; continue ;;
      --registry|--tar|--tag|--base|--only) ;;
      *) die "unknown option '$opt': see hack/image.sh --help" ;;
    esac
    (($#)) && [[ -n "$1" && "$1" != --* ]] || die "$opt needs a value: $(value_hint "$opt")"
    value="$1"; shift
    case "$opt" in
      --registry) set_mode registry; PREFIX="${value%/}"; check_prefix ;;
      --tar) set_mode tar; TAR_DIR="$value" ;;
      --tag) TAG="$value"; check_tag ;;
      --base) BASE="$value" ;;
      --only) IFS=, read -r -a ONLY <<<"$value"; check_only "$value" ;;
    esac
  done
  [[ -n "$MODE" ]] || die "where should the images go? Give --registry PREFIX, --tar DIR or --docker (see --help)"
}

value_hint() {
  case "$1" in
    --registry) echo "a repository prefix, e.g. --registry registry.example.com/team" ;;
    --tar) echo "the directory for the tarballs, e.g. --tar target/images" ;;
    --tag) echo "a tag, e.g. --tag 0.1.0" ;;
    --base) echo "a base image, e.g. --base $DEFAULT_BASE, docker://$DEFAULT_BASE or tar:///path/base.tar" ;;
    --only) echo "a comma-separated list of ${ALL[*]}, e.g. --only operator,stream-gateway" ;;
  esac
}

check_prefix() {
  local last="${PREFIX##*/}"
  [[ "$PREFIX" == */* && ( "$last" == *:* || "$last" == *@* ) ]] \
    && die "--registry '$PREFIX' ends in a tag or digest: give the prefix only (e.g. ${PREFIX%%[:@]*}) and the tag with --tag"
  [[ "$PREFIX" =~ ^[a-z0-9]([a-z0-9._:/-]*[a-z0-9])?$ ]] \
    || die "--registry '$PREFIX' is not a repository prefix: lower-case letters, digits, '.', '_', '-', ':' (port) and '/' only, e.g. registry.example.com/team"
  return 0
}

check_tag() {
  [[ "$TAG" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] \
    || die "--tag '$TAG' is not an image tag: letters, digits, '_', '.', '-' (not first), at most 128, e.g. 0.1.0"
}

check_only() {
  local name
  ((${#ONLY[@]})) || die "--only '$1' names no image: choose from ${ALL[*]}"
  for name in "${ONLY[@]}"; do
    [[ -n "$name" ]] || die "--only '$1' has an empty entry: give names separated by single commas, e.g. operator,stream-gateway"
    [[ -n "${MODULE[$name]+x}" ]] \
      || die "--only: unknown image '$name' in '$1': choose from ${ALL[*]} (comma-separated)"
  done
}

build() {
  local goal modules=() skips=() name args
  case "$MODE" in
    registry) goal=jib:build ;;
    tar) goal=jib:buildTar; mkdir -p "$TAR_DIR"; TAR_DIR="$(cd "$TAR_DIR" && pwd)" ;;
    docker) goal=jib:dockerBuild ;;
  esac
  for name in "${ALL[@]}"; do
    if [[ " ${ONLY[*]} " == *" $name "* ]]; then modules+=("${MODULE[$name]}")
    else skips+=("-Dwarmgate.image.skip.$name=true"); fi # -am may bring the module in
  done
  args=(-B -ntp package "$goal" -DskipTests -pl "$(IFS=,; echo "${modules[*]}")" -am
    "-Dwarmgate.image.prefix=$PREFIX" "-Dwarmgate.image.tag=$TAG" "-Dwarmgate.image.base=$BASE"
    ${skips[@]+"${skips[@]}"})
  [[ "$MODE" != tar ]] || args+=("-Dwarmgate.image.tarDir=$TAR_DIR")
  # shellcheck disable=SC2206 # MVN_ARGS is a list of words
  args+=(${MVN_ARGS:-})
  log "building ${ONLY[*]} on $BASE with $goal: mvn ${args[*]}"
  (cd "$WARMGATE_ROOT" && timed "mvn $goal" mvn "${args[@]}")
}

# The references built and the values that use them, on stdout.
report() {
  local name ref key digest values=() refs=()
  echo "Images ($MODE):"
  for name in "${ONLY[@]}"; do
    ref="$PREFIX/$(image_name "$name"):$TAG"
    refs+=("$ref")
    digest=""
    if [[ "$MODE" == registry ]]; then
      digest="$(cat "$WARMGATE_ROOT/${MODULE[$name]}/target/jib-image.digest" 2>/dev/null || true)"
    fi
    case "$MODE" in
      tar) echo "  $ref  $TAR_DIR/$(image_name "$name").tar" ;;
      *) echo "  $ref${digest:+  ($digest)}" ;;
    esac
    key="${CHART_KEY[$name]}"
    if [[ -n "$key" ]]; then
      values+=("--set $key.repository=$PREFIX/$(image_name "$name")" "--set $key.tag=$TAG")
      [[ -z "$digest" ]] || values+=("--set $key.digest=$digest")
      [[ "$name" != stream-gateway ]] || values+=("--set streamGateway.enabled=true")
    else
      echo "    (not installed by the chart: the example app; WARMGATE_E2E_APP_IMAGE=$ref for the e2e suite)"
    fi
  done
  case "$MODE" in
    tar) echo "Load them: docker load -i FILE, or kind load image-archive FILE --name CLUSTER." ;;
    docker) echo "Kind: kind load docker-image --name CLUSTER ${refs[*]}" ;;
  esac
  if ((${#values[@]})); then
    echo "Chart values:"
    printf '  helm install warmgate charts/warmgate -n warmgate-system --create-namespace'
    printf ' \\\n    %s' "${values[@]}"
    printf '\n'
    [[ " ${ONLY[*]} " != *" stream-gateway "* ]] \
      || echo "  (streamGateway.enabled=true also needs streamGateway.valkey and streamGateway.upstream: charts/warmgate/README.md)"
  fi
}

parse "$@"
build
report
