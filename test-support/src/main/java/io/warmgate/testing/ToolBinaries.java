package io.warmgate.testing;

import java.nio.file.Path;

/**
 * Paths of the binaries {@code hack/prereqs.sh} builds into the binary cache; the versions must
 * match {@code hack/lib.sh}.
 */
final class ToolBinaries {

  static final String KUBERNETES_VERSION = "1.34.4";
  static final String ETCD_VERSION = "3.6.16";
  static final String KWOK_VERSION = "0.7.0";
  static final String ARGO_ROLLOUTS_VERSION = "1.9.2";
  static final String FLAGGER_VERSION = "1.36.1";
  static final String PROMETHEUS_VERSION = "3.16.0";
  static final String HELM_VERSION = "3.19.5";

  private ToolBinaries() {
  }

  static Path kubernetes(String name) {
    return Prerequisites.executable(
        bin().resolve("kubernetes-v" + KUBERNETES_VERSION).resolve(name), name);
  }

  static Path etcd() {
    return Prerequisites.executable(bin().resolve("etcd-v" + ETCD_VERSION).resolve("etcd"), "etcd");
  }

  static Path kwok(String name) {
    return Prerequisites.executable(bin().resolve("kwok-v" + KWOK_VERSION).resolve(name), name);
  }

  static Path argoRolloutsDir() {
    return bin().resolve("argo-rollouts-v" + ARGO_ROLLOUTS_VERSION);
  }

  static Path rolloutsController() {
    return Prerequisites.executable(argoRolloutsDir().resolve("rollouts-controller"),
        "Argo Rollouts controller");
  }

  static Path flaggerDir() {
    return bin().resolve("flagger-v" + FLAGGER_VERSION);
  }

  static Path flagger() {
    return Prerequisites.executable(flaggerDir().resolve("flagger"), "Flagger controller");
  }

  static Path helm() {
    return Prerequisites.executable(bin().resolve("helm-v" + HELM_VERSION).resolve("helm"), "helm");
  }

  /** {@code prometheus} or {@code promtool}. */
  static Path prometheus(String name) {
    return Prerequisites.executable(
        bin().resolve("prometheus-v" + PROMETHEUS_VERSION).resolve(name), name);
  }

  /** Returns kube-api-test's directory; binaries live in {@code k8s/<version>-linux-amd64/}. */
  static Path kubeApiTestDir() {
    return WarmgatePaths.cacheDir().resolve("kube-api-test");
  }

  private static Path bin() {
    return WarmgatePaths.cacheDir().resolve("bin");
  }
}
