#!/usr/bin/env bash
# Builds the Kind node image offline, from Debian packages and Go modules only (no image is pulled):
#   1. a Debian bookworm root filesystem (debootstrap) with systemd, iptables, containerd, runc and
#      the CNI plugins, imported as $ROOTFS_IMAGE;
#   2. the Kind base image $BASE_IMAGE: that root filesystem plus the files and settings of kind's
#      images/base (taken from the kind Go module hack/tools/kind pins);
#   3. the images kubeadm runs (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
#      etcd, coredns, pause), each a binary built here (hack/tools/kubernetes, kubernetes-node, etcd,
#      coredns; pause.c from the Kubernetes module) on $ROOTFS_IMAGE, tagged with the names
#      'kubeadm config images list' prints;
#   4. the node image $NODE_IMAGE: the base image plus kubelet, kubeadm and kubectl, those images
#      imported into its containerd (as kind's 'build node-image' does), a bridge CNI configuration
#      instead of kindnetd (single-node clusters only) and a StorageClass without a provisioner
#      instead of local-path-provisioner;
#   5. $VALKEY_IMAGE (Debian's redis-server) and $JAVA_IMAGE (Debian's OpenJDK 17, the Jib base)
#      and $ARGO_IMAGE (the rollouts-controller hack/prereqs.sh builds) for hack/kind-e2e.sh;
#      the settings of hack/kind-e2e.sh that use them go to $WORK_DIR/images.env.
# Then: hack/kind-e2e.sh --offline (which runs this script). Needs a Docker engine (hack/docker-engine.sh),
# debootstrap (installed with apt when missing), gcc and Go.
# Idempotent: an image already in the Docker engine is not rebuilt (--force rebuilds all).
# Settings: WARMGATE_KIND_NODE_IMAGE, DEBIAN_MIRROR (http://deb.debian.org/debian).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROOTFS_IMAGE="warmgate/kind-rootfs:bookworm"
BASE_IMAGE="warmgate/kind-base:bookworm"
NODE_IMAGE="${WARMGATE_KIND_NODE_IMAGE:-warmgate/kind-node:v$K8S_VERSION}"
VALKEY_IMAGE="warmgate/valkey:bookworm"
JAVA_IMAGE="warmgate/java:17-bookworm"
ARGO_IMAGE="warmgate/argo-rollouts:v$ARGO_ROLLOUTS_VERSION"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
WORK_DIR="$WARMGATE_CACHE_DIR/kind-images"
SETTINGS="$WORK_DIR/images.env"
KUBE_NODE_BIN="$WARMGATE_CACHE_DIR/bin/kubernetes-node-v$K8S_VERSION"
COREDNS_BIN="$WARMGATE_CACHE_DIR/bin/coredns"
KIND_SRC=""
FORCE=0
# kind's images/base package list, without the storage test packages (nfs-common, open-iscsi), plus
# containerd, runc and the CNI plugins, which kind builds from source.
PACKAGES=systemd,systemd-sysv,dbus,conntrack,iptables,nftables,iproute2,ethtool,util-linux,mount,kmod
PACKAGES+=,libseccomp2,pigz,fuse-overlayfs,e2fsprogs,bash,ca-certificates,curl,jq,procps
PACKAGES+=,containerd,runc,containernetworking-plugins

have_image() { ((FORCE == 0)) && docker image inspect "$1" >/dev/null 2>&1; }

check_tools() {
  docker info >/dev/null 2>&1 || die "no Docker engine answers 'docker info': run hack/docker-engine.sh"
  command -v go >/dev/null || die "go not found: install Go 1.24+"
  command -v gcc >/dev/null || die "gcc not found: install gcc (pause is built from pause.c)"
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap (apt)"
    local sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  build_tools kind "$KIND_BIN" "" sigs.k8s.io/kind
  KIND_SRC="$(cd "$WARMGATE_ROOT/hack/tools/kind" && go list -m -f '{{.Dir}}' sigs.k8s.io/kind)"
}

build_binaries() {
  timed "kube-apiserver, kube-controller-manager, kube-scheduler" build_tools kubernetes "$K8S_BIN" \
    "$(k8s_ldflags)" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler
  timed "kubelet, kubeadm, kubectl, kube-proxy" build_tools kubernetes-node "$KUBE_NODE_BIN" \
    "$(k8s_ldflags)" k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubeadm \
    k8s.io/kubernetes/cmd/kubectl k8s.io/kubernetes/cmd/kube-proxy
  timed "argo-rollouts" build_tools argo-rollouts "$ARGO_BIN" \
    "-X github.com/argoproj/argo-rollouts/utils/version.version=$ARGO_ROLLOUTS_VERSION" \
    github.com/argoproj/argo-rollouts/cmd/rollouts-controller
  timed "etcd" build_tools etcd "$ETCD_BIN" \
    "-X go.etcd.io/etcd/api/v3/version.GitSHA=v$ETCD_VERSION" etcd=go.etcd.io/etcd/server/v3
  CGO_ENABLED=0 timed "coredns" build_tools coredns "$COREDNS_BIN" "" github.com/coredns/coredns
  local pause_c
  pause_c="$(cd "$WARMGATE_ROOT/hack/tools/kubernetes" && go mod download k8s.io/kubernetes \
    && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c"
  if [[ ! -x "$WORK_DIR/pause" || "$pause_c" -nt "$WORK_DIR/pause" ]]; then
    mkdir -p "$WORK_DIR"
    gcc -Os -Wall -Werror -static -DVERSION="v$K8S_VERSION-warmgate" -o "$WORK_DIR/pause" "$pause_c"
    strip "$WORK_DIR/pause"
  fi
}

build_rootfs() {
  if have_image "$ROOTFS_IMAGE"; then log "$ROOTFS_IMAGE: present"; return; fi
  local dir="$WORK_DIR/rootfs"
  rm -rf "$dir"; mkdir -p "$dir"
  log "debootstrap bookworm into $dir (minbase + ${PACKAGES//,/ })"
  debootstrap --variant=minbase --include="$PACKAGES" bookworm "$dir" "$MIRROR" >"$WORK_DIR/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK_DIR/debootstrap.log" >&2; die "debootstrap failed; see $WORK_DIR/debootstrap.log"; }
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  tar -C "$dir" --numeric-owner -c . | docker import - "$ROOTFS_IMAGE" >/dev/null
  rm -rf "$dir"
}

build_base() {
  if have_image "$BASE_IMAGE"; then log "$BASE_IMAGE: present"; return; fi
  local ctx="$WORK_DIR/base-context"
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp -r "$KIND_SRC/images/base/files" "$ctx/files"
  chmod -R u+w "$ctx"
  find "$ctx/files" -type d -exec chmod 0755 {} +
  find "$ctx/files" -type f -exec chmod 0644 {} +
  chmod 0755 "$ctx"/files/usr/local/bin/* "$ctx"/files/kind/bin/*
  # As kind's images/base Dockerfile, with Debian's containerd (/usr/bin) and CNI plugins (/usr/lib/cni).
  cat > "$ctx/Dockerfile" <<EOF
FROM $ROOTFS_IMAGE
COPY files/ /
RUN find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete \\
 && rm -f /lib/systemd/system/multi-user.target.wants/* /etc/systemd/system/*.wants/* \\
    /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/sockets.target.wants/*udev* \\
    /lib/systemd/system/sockets.target.wants/*initctl* /lib/systemd/system/basic.target.wants/* \\
 && echo "ReadKMsg=no" >> /etc/systemd/journald.conf \\
 && ln -sf /usr/lib/systemd/systemd /sbin/init \\
 && ln -sf /usr/bin/containerd /usr/local/bin/containerd \\
 && mkdir -p /opt/cni /etc/cni/net.d /etc/kubernetes/manifests && ln -sfn /usr/lib/cni /opt/cni/bin \\
 && systemctl enable kubelet.service containerd.service undo-mount-hacks.service \\
 && systemctl mask systemd-binfmt.service \\
 && ctr oci spec \\
    | jq '.hooks.createContainer[.hooks.createContainer| length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \\
    | jq 'del(.process.rlimits)' > /etc/containerd/cri-base.json
ENV container=docker
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
EOF
  log "building $BASE_IMAGE (kind $KIND_VERSION's images/base files)"
  DOCKER_BUILDKIT=0 docker build -q -t "$BASE_IMAGE" "$ctx" >/dev/null
  rm -rf "$ctx"
}

# component_image NAME BINARY [ENTRYPOINT]: BINARY on the root filesystem image, in /usr/local/bin
# (or at /NAME with ENTRYPOINT ["/NAME"]), tagged warmgate/kind-NAME:v$K8S_VERSION.
component_image() {
  local name="$1" binary="$2" entrypoint="${3:-}" tag="warmgate/kind-$1:v$K8S_VERSION"
  if have_image "$tag"; then return; fi
  local ctx="$WORK_DIR/ctx-$name"
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$binary" "$ctx/$name"
  if [[ -n "$entrypoint" ]]; then
    printf 'FROM %s\nCOPY %s /%s\nENTRYPOINT ["/%s"]\n' "$ROOTFS_IMAGE" "$name" "$name" "$name" > "$ctx/Dockerfile"
  else
    printf 'FROM %s\nCOPY %s /usr/local/bin/%s\n' "$ROOTFS_IMAGE" "$name" "$name" > "$ctx/Dockerfile"
  fi
  DOCKER_BUILDKIT=0 docker build -q -t "$tag" "$ctx" >/dev/null
  rm -rf "$ctx"
}

# Fills KUBEADM_IMAGES: the images kubeadm runs, tagged with the names it asks for.
KUBEADM_IMAGES=()
build_components() {
  component_image kube-apiserver "$K8S_BIN/kube-apiserver"
  component_image kube-controller-manager "$K8S_BIN/kube-controller-manager"
  component_image kube-scheduler "$K8S_BIN/kube-scheduler"
  component_image kube-proxy "$KUBE_NODE_BIN/kube-proxy"
  component_image etcd "$ETCD_BIN/etcd"
  component_image coredns "$COREDNS_BIN/coredns" entrypoint
  component_image pause "$WORK_DIR/pause" entrypoint
  local image name
  while read -r image; do
    name="${image%:*}"; name="${name##*/}"
    docker tag "warmgate/kind-$name:v$K8S_VERSION" "$image"
    KUBEADM_IMAGES+=("$image")
  done < <("$KUBE_NODE_BIN/kubeadm" config images list --kubernetes-version "v$K8S_VERSION")
  log "kubeadm's images: ${KUBEADM_IMAGES[*]}"
}

build_node() {
  if have_image "$NODE_IMAGE"; then log "$NODE_IMAGE: present"; return; fi
  local id="warmgate-kind-build-$$" pause="" image
  for image in "${KUBEADM_IMAGES[@]}"; do [[ "$image" != */pause:* ]] || pause="$image"; done
  [[ -n "$pause" ]] || die "kubeadm lists no pause image"
  docker rm -f "$id" >/dev/null 2>&1 || true
  # As kind's node image build: a container that sleeps, files copied in, containerd started to
  # import the images (content only: unpacked when the node runs them), then docker commit.
  docker run -d --name "$id" --entrypoint sleep --security-opt seccomp=unconfined \
    --tmpfs /run --tmpfs /tmp "$BASE_IMAGE" infinity >/dev/null
  local bin
  for bin in kubelet kubeadm kubectl; do
    docker cp "$KUBE_NODE_BIN/$bin" "$id:/usr/bin/$bin"
  done
  docker exec -i "$id" bash -euo pipefail -s "v$K8S_VERSION" "$pause" <<'EOS'
echo "$1" > /kind/version
# kubeadm's pause image is the sandbox image.
sed -i "s#^\(\s*sandbox_image\s*=\s*\).*#\1\"$2\"#" /etc/containerd/config.toml
# Pods may not lower their oom_score_adj: that needs CAP_SYS_RESOURCE, which the node may lack
# (hack/docker-engine.sh); without this every pod sandbox fails with "runc create failed: unable to
# start container process: can't get final child's PID from pipe: EOF".
sed -i "s#^\(\s*restrict_oom_score_adj\s*=\s*\).*#\1true#" /etc/containerd/config.toml
mkdir -p /kind/manifests /etc/cni/net.d
# Instead of kindnetd: one bridge on the node for kind's default pod subnet (the first node's
# podCIDR), so single-node clusters only.
cat > /etc/cni/net.d/10-bridge.conflist <<'JSON'
{
  "cniVersion": "0.4.0",
  "name": "bridge",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.0.0/24"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
JSON
# kind applies these two manifests after kubeadm init.
cat > /kind/manifests/default-cni.yaml <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: warmgate-cni, namespace: kube-system}
data: {cni: "bridge plugin configured in the node image (/etc/cni/net.d/10-bridge.conflist)"}
YAML
cat > /kind/manifests/default-storage.yaml <<'YAML'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
YAML
nohup containerd >/tmp/containerd.log 2>&1 &
for i in $(seq 1 30); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && break; sleep 1; done
ctr version >/dev/null
EOS
  log "importing ${#KUBEADM_IMAGES[@]} images into the node's containerd"
  docker save "${KUBEADM_IMAGES[@]}" | docker exec -i "$id" ctr --namespace=k8s.io images import \
    --label=io.cri-containerd.pinned=pinned --all-platforms --no-unpack --digests - >/dev/null
  docker exec "$id" ctr --namespace=k8s.io images list -q | grep -v -e '^sha256:' -e '^import-' >&2
  docker exec "$id" pkill containerd
  sleep 2
  docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' "$id" "$NODE_IMAGE" >/dev/null
  docker rm -f "$id" >/dev/null
}

# The images hack/kind-e2e.sh runs besides warmgate's own, on the same root filesystem: Valkey
# (Debian's redis-server, also started as valkey-server, reachable from other pods: no protected mode) and the Java base of the Jib images.
build_workloads() {
  local ctx="$WORK_DIR/ctx-workloads"
  rm -rf "$ctx"; mkdir -p "$ctx"
  if ! have_image "$VALKEY_IMAGE"; then
    printf '%s\n' "FROM $ROOTFS_IMAGE" \
      "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null \\" \
      " && rm -rf /var/lib/apt/lists/* \\" \
      " && printf '#!/bin/sh\\nexec /usr/bin/redis-server \"\$@\" --protected-mode no\\n' > /usr/local/bin/valkey-server \\" \
      " && chmod 755 /usr/local/bin/valkey-server" \
      "USER redis" "EXPOSE 6379" 'CMD ["valkey-server"]' > "$ctx/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$VALKEY_IMAGE" "$ctx" >/dev/null
  fi
  if ! have_image "$JAVA_IMAGE"; then
    printf '%s\n' "FROM $ROOTFS_IMAGE" \
      "RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null \\" \
      " && rm -rf /var/lib/apt/lists/*" > "$ctx/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$JAVA_IMAGE" "$ctx" >/dev/null
  fi
  if ! have_image "$ARGO_IMAGE"; then
    cp "$ARGO_BIN/rollouts-controller" "$ctx/rollouts-controller"
    printf '%s\n' "FROM $ROOTFS_IMAGE" "COPY rollouts-controller /bin/rollouts-controller" "USER 999" \
      'ENTRYPOINT ["/bin/rollouts-controller"]' > "$ctx/Dockerfile"
    DOCKER_BUILDKIT=0 docker build -q -t "$ARGO_IMAGE" "$ctx" >/dev/null
  fi
  rm -rf "$ctx"
}

# The settings of hack/kind-e2e.sh that use these images (kind-e2e.sh --offline reads them).
write_settings() {
  mkdir -p "$WORK_DIR"
  printf '%s\n' "KIND_NODE_IMAGE=$NODE_IMAGE" "WARMGATE_VALKEY_IMAGE=$VALKEY_IMAGE" \
    "WARMGATE_EMULATOR_BASE_IMAGE=$ROOTFS_IMAGE" "WARMGATE_JIB_BASE_IMAGE=docker://$JAVA_IMAGE" \
    "WARMGATE_ARGO_ROLLOUTS_IMAGE=$ARGO_IMAGE" > "$SETTINGS"
  log "settings for hack/kind-e2e.sh in $SETTINGS: $(paste -sd' ' "$SETTINGS")"
}

main() {
  while (($#)); do
    case "$1" in
      --force) FORCE=1 ;;
      *) die "usage: hack/kind-images.sh [--force]" ;;
    esac
    shift
  done
  timed "tools" check_tools
  timed "binaries" build_binaries
  timed "root filesystem" build_rootfs
  timed "base image" build_base
  timed "kubeadm images" build_components
  timed "node image" build_node
  timed "valkey and java images" build_workloads
  write_settings
}

main "$@"
