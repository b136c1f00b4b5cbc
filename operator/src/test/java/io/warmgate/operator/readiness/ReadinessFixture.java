package io.warmgate.operator.readiness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.warmgate.operator.gate.FakeAgents;
import io.warmgate.operator.inject.PodInjector;
import io.warmgate.operator.testing.ApiServer;
import io.warmgate.operator.testing.Policies;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What the readiness ITs share, whichever controller they play: a namespace pods can be created
 * in, the agents of a release with their hot set and traffic, and the pods'
 * {@value PodInjector#READINESS_GATE} condition.
 */
final class ReadinessFixture {

  /** The agents of a release, and the hot set they registered. */
  record Agents(FakeAgents agents, List<String> hot) {}

  private final ApiServer api;
  private final KubernetesClient client;

  ReadinessFixture(ApiServer api) {
    this.api = api;
    this.client = api.client();
  }

  /** A new namespace with the default service account pods need (no controller-manager here). */
  String namespace(String prefix) {
    String ns = api.newNamespace(prefix);
    client.serviceAccounts().inNamespace(ns).resource(new ServiceAccountBuilder()
        .withNewMetadata().withName("default").endMetadata().build()).create();
    return ns;
  }

  /**
   * Agents {@code oldPod} (revision {@code oldHash}, schema {@code from}) and {@code newPod}
   * ({@code newHash}, schema {@code to}) of cache {@code deals-<ns>}, a hot set of 100 ids, the
   * old key space's traffic and, on a schema change, the new one's.
   */
  static Agents agents(RedisExtension redis, String ns, String oldPod, String oldHash,
      String from, String newPod, String newHash, String to) {
    FakeAgents agents = new FakeAgents(redis.uri(), "deals-" + ns, ns);
    agents.register(oldPod, oldHash, from);
    agents.register(newPod, newHash, to);
    double[] rates = new double[100];
    Arrays.fill(rates, 2.0);
    List<String> hot = agents.hotSetAt(rates);
    agents.traffic(from, 200, 0.9, 20);
    if (!to.equals(from)) {
      agents.traffic(to, 50, 0.0, 5);
    }
    return new Agents(agents, hot);
  }

  Optional<PodCondition> condition(String ns, String pod) {
    Pod read = client.pods().inNamespace(ns).withName(pod).get();
    return read == null || read.getStatus() == null || read.getStatus().getConditions() == null
        ? Optional.empty() : read.getStatus().getConditions().stream()
            .filter(c -> PodInjector.READINESS_GATE.equals(c.getType())).findFirst();
  }

  PodCondition awaitCondition(String ns, String pod, String status) {
    await().atMost(Policies.WITHIN).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(condition(ns, pod)).as("%s of pod %s", PodInjector.READINESS_GATE, pod)
            .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(status)));
    return condition(ns, pod).orElseThrow();
  }
}
