#!/usr/bin/env bash
# Starts a Docker engine for hack/kind-e2e.sh where none runs, installing what is missing:
#   - Debian's Docker package (dockerd, containerd, runc and the CLI) and jq;
#   - dockerd, started in the background with its own config file and log under
#     $WARMGATE_CACHE_DIR/docker (overlay2, cgroupfs driver);
#   - when this process's bounding set lacks CAP_SYS_RESOURCE (some sandboxes refuse it), every
#     container runs through hack/docker/runc-nosysresource, a runc wrapper that removes that
#     capability from the container's sets: without it 'docker run --privileged' (Kind's nodes) fails
#     with "unable to apply caps: operation not permitted".
# Idempotent: a second run finds the engine answering 'docker info' and does nothing.
# hack/docker-engine.sh --stop stops the engine this script started (and its containers).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DOCKER_DIR="$WARMGATE_CACHE_DIR/docker"
PID_FILE="$DOCKER_DIR/dockerd.pid"
WRAPPER="$WARMGATE_ROOT/hack/docker/runc-nosysresource"

install_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  command -v jq >/dev/null || missing+=(jq)
  ((${#missing[@]})) || return 0
  log "installing ${missing[*]} (apt)"
  local sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# True when the bounding set lacks CAP_SYS_RESOURCE (capability 24).
lacks_sys_resource() {
  local bnd
  bnd="$(sed -n 's/^CapBnd:\s*//p' /proc/self/status)"
  (( (16#$bnd >> 24 & 1) == 0 ))
}

write_config() {
  mkdir -p "$DOCKER_DIR"
  local runtime=""
  if lacks_sys_resource; then
    warn "CAP_SYS_RESOURCE is not in the bounding set: containers run through $WRAPPER"
    runtime="\"runtimes\": {\"runc-nosysresource\": {\"path\": \"$WRAPPER\"}}, \"default-runtime\": \"runc-nosysresource\","
  fi
  cat > "$DOCKER_DIR/daemon.json" <<JSON
{
  $runtime
  "storage-driver": "overlay2",
  "exec-opts": ["native.cgroupdriver=cgroupfs"]
}
JSON
}

start() {
  if docker info >/dev/null 2>&1; then log "a Docker engine already answers 'docker info'"; return; fi
  install_packages
  write_config
  log "starting dockerd (log: $DOCKER_DIR/dockerd.log)"
  nohup dockerd --config-file "$DOCKER_DIR/daemon.json" >"$DOCKER_DIR/dockerd.log" 2>&1 &
  echo $! > "$PID_FILE"
  local i
  for ((i = 0; i < 60; i++)); do
    docker info >/dev/null 2>&1 && { log "dockerd answers (pid $(cat "$PID_FILE"))"; return; }
    kill -0 "$(cat "$PID_FILE")" 2>/dev/null || { tail -20 "$DOCKER_DIR/dockerd.log" >&2; die "dockerd exited"; }
    sleep 1
  done
  die "dockerd did not answer within 60 s; see $DOCKER_DIR/dockerd.log"
}

stop() {
  [[ -f "$PID_FILE" ]] || { log "no dockerd started by this script"; return; }
  local pid; pid="$(cat "$PID_FILE")"
  if kill -0 "$pid" 2>/dev/null; then
    local ids; ids="$(docker ps -q)"
    [[ -z "$ids" ]] || docker stop -t 10 $ids >/dev/null
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 1; done
    log "stopped dockerd (pid $pid)"
  fi
  rm -f "$PID_FILE"
}

case "${1:-}" in
  "") timed "docker engine" start ;;
  --stop) stop ;;
  *) die "usage: hack/docker-engine.sh [--stop]" ;;
esac
