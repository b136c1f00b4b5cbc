package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.ValkeySpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The agent registers the pod-template hash of the controller that rolls its pods: Argo Rollouts'
 * label for a Rollout, the Deployment controller's for a Deployment (and Flagger's pods), the
 * StatefulSet controller's {@code controller-revision-hash} for a StatefulSet.
 */
class PodHashLabelTest {

  static String podHashPath(TargetKind kind) {
    CachePolicySpec spec = new CachePolicySpec();
    TargetRef ref = new TargetRef();
    ref.setKind(kind);
    ref.setName("app");
    spec.setTargetRef(ref);
    spec.setCacheName("deals");
    ValkeySpec valkey = new ValkeySpec();
    valkey.setAddresses(List.of("valkey:6379"));
    spec.setValkey(valkey);
    return AgentEnv.of(spec).stream().filter(v -> "WARMGATE_POD_TEMPLATE_HASH".equals(v.getName()))
        .map(EnvVar::getValueFrom).map(v -> v.getFieldRef().getFieldPath()).findFirst()
        .orElseThrow();
  }

  @Test
  void rolloutPodsRegisterArgoRolloutsHash() {
    assertThat(podHashPath(TargetKind.Rollout))
        .isEqualTo("metadata.labels['rollouts-pod-template-hash']");
  }

  @Test
  void deploymentPodsRegisterTheDeploymentControllersHash() {
    assertThat(podHashPath(TargetKind.Deployment))
        .isEqualTo("metadata.labels['pod-template-hash']");
  }

  @Test
  void statefulSetPodsRegisterTheirControllerRevisionHash() {
    assertThat(podHashPath(TargetKind.StatefulSet))
        .isEqualTo("metadata.labels['controller-revision-hash']");
  }
}
