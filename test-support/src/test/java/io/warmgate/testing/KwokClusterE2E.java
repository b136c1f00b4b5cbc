package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KwokClusterE2E {

  @RegisterExtension
  static final KwokClusterExtension cluster = new KwokClusterExtension();

  @Test
  void canaryRolloutBecomesHealthyWithReadyPods() {
    var client = cluster.client();
    var rollouts = client.genericKubernetesResources(ArgoRollouts.ROLLOUTS).inNamespace(cluster.namespace());

    rollouts.resource(Rollouts.canary("deal-service")).create();

    await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
      GenericKubernetesResource rollout = rollouts.withName("deal-service").get();
      assertThat(rollout.<String>get("status", "phase")).isEqualTo("Healthy");
      assertThat(rollout.<Integer>get("status", "availableReplicas")).isEqualTo(2);
    });
    assertThat(client.pods().inNamespace(cluster.namespace()).withLabel("app", "deal-service").list().getItems())
        .hasSize(2)
        .allSatisfy(pod -> assertThat(isReady(pod)).as(pod.getMetadata().getName()).isTrue())
        .allSatisfy(pod -> assertThat(pod.getSpec().getNodeName()).isEqualTo(KwokCluster.NODE_NAME));
  }

  private static boolean isReady(Pod pod) {
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
