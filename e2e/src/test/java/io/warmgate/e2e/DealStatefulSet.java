package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * One deal-service StatefulSet gated by its pods' readiness: {@code examples/statefulset/} (the
 * policy, and the StatefulSet: 4 replicas, {@code OrderedReady}, a {@code RollingUpdate}) with
 * the pod template of {@code examples/local/rollout.yaml}, whose environment runs the app against
 * this stack. The real StatefulSet controller rolls it out.
 */
final class DealStatefulSet extends DealApp {

  /** The label the StatefulSet controller gives each pod: its ControllerRevision's name. */
  static final String REVISION_LABEL = "controller-revision-hash";

  /** @param warmup replaces the example policy's {@code spec.warmup} entries given here */
  DealStatefulSet(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir) {
    super(client, namespace, name, stack, "examples/statefulset/cachepolicy.yaml", warmup, Map.of());
    GenericKubernetesResource statefulSet = load("examples/statefulset/statefulset.yaml");
    Map<String, Object> spec = map(statefulSet.getAdditionalProperties().get("spec"));
    spec.put("serviceName", name);
    spec.put("template", map(map(load("examples/local/rollout.yaml").getAdditionalProperties()
        .get("spec")).get("template")));
    applyAndRun(statefulSet, 4, stack, workdir);
  }

  @Override
  Resource<GenericKubernetesResource> workload() {
    return client.genericKubernetesResources("apps/v1", "StatefulSet").inNamespace(namespace)
        .withName(name);
  }

  @Override
  String workloadKind() {
    return "StatefulSet";
  }

  StatefulSet statefulSet() {
    return client.apps().statefulSets().inNamespace(namespace).withName(name).get();
  }

  /** {@code status.updateRevision}: the ControllerRevision new pods are created from. */
  String updateRevision() {
    StatefulSet s = statefulSet();
    return s == null || s.getStatus() == null ? null : s.getStatus().getUpdateRevision();
  }

  /**
   * The controller has seen the latest spec, and every replica is of the update revision and
   * Ready: the rolling update is done.
   */
  @Override
  boolean healthyAndDone() {
    StatefulSet s = statefulSet();
    StatefulSetStatus status = s == null ? null : s.getStatus();
    int replicas = s == null ? -1 : s.getSpec().getReplicas();
    return status != null && Objects.equals(status.getObservedGeneration(), s.getMetadata().getGeneration())
        && status.getUpdateRevision() != null
        && status.getUpdateRevision().equals(status.getCurrentRevision())
        && Objects.equals(status.getUpdatedReplicas(), replicas)
        && Objects.equals(status.getReadyReplicas(), replicas);
  }
}
