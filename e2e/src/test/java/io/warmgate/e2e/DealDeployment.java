package io.warmgate.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One deal-service Deployment gated by its pods' readiness: {@code examples/deployment/} (the
 * policy, and the Deployment's strategy: 4 replicas, {@code maxSurge: 1}, {@code maxUnavailable: 0})
 * with the pod template of {@code examples/local/rollout.yaml}, whose environment runs the app
 * against this stack. The real Deployment controller rolls it out.
 */
class DealDeployment extends DealApp {

  /** The label the Deployment controller gives a ReplicaSet's pods. */
  static final String POD_HASH_LABEL = "pod-template-hash";
  private static final String REVISION = "deployment.kubernetes.io/revision";

  /** @param warmup replaces the example policy's {@code spec.warmup} entries given here */
  DealDeployment(KubernetesClient client, String namespace, String name, Stack stack,
      Map<String, Object> warmup, Path workdir) {
    this(client, namespace, name, stack, "examples/deployment/cachepolicy.yaml", warmup, workdir);
  }

  /** With the policy of {@code policyExample}, which targets a Deployment. */
  protected DealDeployment(KubernetesClient client, String namespace, String name, Stack stack,
      String policyExample, Map<String, Object> warmup, Path workdir) {
    super(client, namespace, name, stack, policyExample, warmup, Map.of());
    GenericKubernetesResource deployment = load("examples/deployment/deployment.yaml");
    Map<String, Object> podTemplate = map(map(load("examples/local/rollout.yaml")
        .getAdditionalProperties().get("spec")).get("template"));
    map(deployment.getAdditionalProperties().get("spec")).put("template", podTemplate);
    applyAndRun(deployment, 4, stack, workdir);
  }

  @Override
  Resource<GenericKubernetesResource> workload() {
    return client.genericKubernetesResources("apps/v1", "Deployment").inNamespace(namespace)
        .withName(name);
  }

  @Override
  String workloadKind() {
    return "Deployment";
  }

  Deployment deployment() {
    return deployment(name);
  }

  Deployment deployment(String deployment) {
    return client.apps().deployments().inNamespace(namespace).withName(deployment).get();
  }

  /**
   * The controller has seen the latest spec and every replica is of its newest ReplicaSet,
   * available, and the only one: the old pods are gone.
   */
  @Override
  boolean healthyAndDone() {
    Deployment d = deployment();
    DeploymentStatus s = d == null ? null : d.getStatus();
    int replicas = d == null ? -1 : d.getSpec().getReplicas();
    return s != null && Objects.equals(s.getObservedGeneration(), d.getMetadata().getGeneration())
        && Objects.equals(s.getReplicas(), replicas)
        && Objects.equals(s.getUpdatedReplicas(), replicas)
        && Objects.equals(s.getAvailableReplicas(), replicas)
        && pods().size() == replicas;
  }

  /** The {@value #POD_HASH_LABEL} of the Deployment's newest ReplicaSet, null before it has one. */
  String newestPodHash() {
    return client.apps().replicaSets().inNamespace(namespace).withLabel("app", name).list()
        .getItems().stream()
        .filter(rs -> rs.getMetadata().getAnnotations() != null
            && rs.getMetadata().getAnnotations().containsKey(REVISION))
        .max(Comparator.comparingLong(rs -> Long.parseLong(rs.getMetadata().getAnnotations().get(REVISION))))
        .map(ReplicaSet::getMetadata).map(m -> m.getLabels().get(POD_HASH_LABEL)).orElse(null);
  }

  /** The app's pods, being deleted or not. */
  List<Pod> pods() {
    return client.pods().inNamespace(namespace).withLabel("app", name).list().getItems();
  }
}
