package io.warmgate.bench.operator;

import java.time.Duration;

/**
 * Times a new policy: creates one policy (on a Rollout of its own) at a time, awaits it Ready,
 * then deletes both and waits until the operator has let the policy go, so that the next one
 * meets the same operator.
 */
final class SinglePolicies {

  private static final Duration WITHIN = Duration.ofSeconds(120);

  private final ArgoRolloutPart argo;
  private final BenchPolicies policies;
  private final ReadinessWatch ready;
  private final String namespace;
  private final int pods;

  SinglePolicies(ArgoRolloutPart argo, BenchPolicies policies, ReadinessWatch ready,
      String namespace, int pods) {
    this.argo = argo;
    this.policies = policies;
    this.ready = ready;
    this.namespace = namespace;
    this.pods = pods;
  }

  /** Create → Ready of {@code count} policies named {@code <prefix>-<i>}, one at a time. */
  Samples time(String prefix, int count) {
    Samples all = new Samples();
    for (int i = 0; i < count; i++) {
      String name = prefix + "-" + i;
      argo.create(namespace, name, pods);
      ready.expect(name, 1);
      policies.create(namespace, name, name, w -> { });
      all.addAll(ready.awaitAll(WITHIN));
      policies.delete(namespace, name);
      argo.delete(namespace, name);
      awaitGone(name);
    }
    return all;
  }

  /** The operator removes its finalizer; until then the policy still counts as managed. */
  private void awaitGone(String name) {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (policies.get(namespace, name) != null) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("policy " + namespace + "/" + name + " not deleted within "
            + WITHIN + "; see the operator's log");
      }
      Sleep.millis(20);
    }
  }
}
