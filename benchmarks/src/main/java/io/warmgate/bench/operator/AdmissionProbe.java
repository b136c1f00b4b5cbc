package io.warmgate.bench.operator;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Creates a labelled pod as a dry run every {@link #PERIOD}, through the API server and so through
 * the registered pod-injection webhook, and records what came back: the injection annotation
 * (the webhook answered), or the pod unchanged (the API server gave up on the webhook, which its
 * {@code failurePolicy: Ignore} allows), and how long the admission took.
 */
final class AdmissionProbe implements AutoCloseable {

  static final Duration PERIOD = Duration.ofMillis(200);

  /**
   * One admission.
   *
   * @param sentNanos {@link System#nanoTime()} when it was sent
   * @param tookNanos how long the API server took to answer
   * @param injected whether the webhook configured the pod
   * @param error the API server's refusal, or null
   */
  record Admission(long sentNanos, long tookNanos, boolean injected, String error) {}

  private final KubernetesClient client;
  private final String namespace;
  private final String policy;
  private final List<Admission> admissions = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Thread thread;

  AdmissionProbe(KubernetesClient client, String namespace, String policy) {
    this.client = client;
    this.namespace = namespace;
    this.policy = policy;
    this.thread = new Thread(this::loop, "admission-probe");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  private void loop() {
    int n = 0;
    while (running.get()) {
      long sent = System.nanoTime();
      boolean injected = false;
      String error = null;
      try {
        Pod admitted = client.pods().inNamespace(namespace).resource(pod("probe-" + n++))
            .dryRun().create();
        injected = admitted.getMetadata().getAnnotations() != null
            && admitted.getMetadata().getAnnotations().containsKey("warmgate.io/injected");
      } catch (KubernetesClientException e) {
        error = e.getCode() + " " + e.getMessage();
      }
      synchronized (admissions) {
        admissions.add(new Admission(sent, System.nanoTime() - sent, injected, error));
      }
      Sleep.millis(Math.max(0, PERIOD.toMillis() - (System.nanoTime() - sent) / 1_000_000));
    }
  }

  private Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace(namespace)
        .addToLabels("warmgate.io/cache-policy", policy).endMetadata()
        .withNewSpec().addNewContainer().withName("app").withImage("registry.invalid/app:1")
        .endContainer().endSpec().build();
  }

  /** The admissions sent at or after {@code sinceNanos}, in the order sent. */
  List<Admission> since(long sinceNanos) {
    synchronized (admissions) {
      return admissions.stream().filter(a -> a.sentNanos() >= sinceNanos).toList();
    }
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    thread.join(Duration.ofSeconds(15).toMillis());
  }
}
