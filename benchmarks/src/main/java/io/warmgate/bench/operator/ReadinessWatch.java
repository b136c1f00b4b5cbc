package io.warmgate.bench.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.warmgate.operator.model.CachePolicy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches the CachePolicies of a namespace and measures reconcile latency: from the moment a
 * create or update of a policy is sent ({@link #expect}) to the first event whose status is
 * {@code Ready=True} with {@code observedGeneration} equal to that generation.
 */
final class ReadinessWatch implements AutoCloseable {

  private record Expected(long generation, long sentNanos) {}

  private final Map<String, Expected> pending = new ConcurrentHashMap<>();
  private final Samples latencies = new Samples();
  private final Watch watch;

  ReadinessWatch(KubernetesClient client, String namespace) {
    watch = client.resources(CachePolicy.class).inNamespace(namespace).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, CachePolicy policy) {
        long now = System.nanoTime();
        String name = policy.getMetadata().getName();
        Expected expected = pending.get(name);
        if (expected != null && BenchPolicies.readyForCurrentSpec(policy)
            && policy.getMetadata().getGeneration() >= expected.generation()
            && pending.remove(name, expected)) {
          synchronized (latencies) {
            latencies.addNanos(now - expected.sentNanos());
          }
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        // A dropped watch shows as pending policies at awaitAll's deadline.
      }
    });
  }

  /** Call right before sending the create or update that gives {@code name} this generation. */
  void expect(String name, long generation) {
    pending.put(name, new Expected(generation, System.nanoTime()));
  }

  /**
   * Waits until every expected policy was seen ready and returns the latencies recorded since
   * the last call.
   *
   * @throws IllegalStateException naming the policies still pending after {@code timeout}
   */
  Samples awaitAll(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!pending.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not Ready for their current spec within " + timeout
            + ": " + pending.keySet() + "; see the operator's log");
      }
      Sleep.millis(10);
    }
    synchronized (latencies) {
      Samples round = latencies.copy();
      latencies.clear();
      return round;
    }
  }

  @Override
  public void close() {
    watch.close();
  }
}
