package io.warmgate.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Issue 28 item 9: the webhook's Events neither delay an admission nor pile up in memory. */
class InjectionEventsTest {

  static Pod pod() {
    return new PodBuilder().withNewMetadata().withGenerateName("deal-service-").endMetadata()
        .build();
  }

  @Test
  void anApiServerThatNeverAnswersDoesNotDelayTheAdmission() throws Exception {
    // Accepts connections (the kernel's backlog) and never answers: a stalled API server.
    try (ServerSocket stalled = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
            .withMasterUrl("http://127.0.0.1:" + stalled.getLocalPort())
            .withRequestTimeout(5_000).withRequestRetryBackoffLimit(0).build()).build()) {
      InjectionEvents events = new InjectionEvents(client, Clock.systemUTC());

      long start = System.nanoTime();
      events.policyNotFound("shop", pod(), "deals");
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(took).isLessThan(Duration.ofMillis(500));
    }
  }

  @Test
  void rememberedPolicyNamesAreBounded() {
    InjectionEvents events = new InjectionEvents(null, Clock.systemUTC());

    for (int i = 0; i < InjectionEvents.MAX_REMEMBERED + 1000; i++) {
      events.policyNotFound("shop", pod(), "policy-" + i);
    }

    assertThat(events.remembered()).isEqualTo(InjectionEvents.MAX_REMEMBERED);
  }
}
