package io.warmgate.operator.gate;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.warmgate.contract.AgentVariables;
import io.warmgate.operator.inject.AgentEnv;
import java.util.List;

/**
 * What the canary's own pods say, for telling apart why no agent of the canary registered: its
 * pods lack the {@code WARMGATE_*} variables (not injected), are starting (not registered yet), or
 * are injected and Ready while their agents stay out of the registry (failing).
 *
 * @param total pods with the canary's {@code rollouts-pod-template-hash}, not being deleted
 * @param injected those whose containers carry the injected configuration
 *     ({@code WARMGATE_CACHE_NAME})
 * @param ready injected pods whose {@code Ready} condition is True
 */
public record CanaryPods(int total, int injected, int ready) {

  /**
   * Reads the pods of {@code namespace} labelled {@code rollouts-pod-template-hash=podHash}.
   *
   * @return the counts, or null when the pods cannot be listed (no RBAC, API error): the gate
   *     then says what it can without them
   */
  static CanaryPods read(KubernetesClient client, String namespace, String podHash) {
    return read(client, namespace, AgentEnv.POD_TEMPLATE_HASH_LABEL, podHash);
  }

  /** Reads the pods of {@code namespace} labelled {@code label=podHash}; null as above. */
  static CanaryPods read(KubernetesClient client, String namespace, String label,
      String podHash) {
    List<Pod> pods;
    try {
      pods = client.pods().inNamespace(namespace)
          .withLabel(label, podHash).list().getItems();
    } catch (KubernetesClientException e) {
      return null;
    }
    int total = 0;
    int injected = 0;
    int ready = 0;
    for (Pod pod : pods) {
      if (pod.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      total++;
      if (injected(pod)) {
        injected++;
        if (ready(pod)) {
          ready++;
        }
      }
    }
    return new CanaryPods(total, injected, ready);
  }

  private static boolean injected(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null) {
      return false;
    }
    for (Container container : pod.getSpec().getContainers()) {
      List<EnvVar> env = container.getEnv();
      if (env != null && env.stream().anyMatch(v -> AgentVariables.CACHE_NAME.equals(v.getName()))) {
        return true;
      }
    }
    return false;
  }

  private static boolean ready(Pod pod) {
    return pod.getStatus() != null && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType())
            && "True".equals(c.getStatus()));
  }
}
