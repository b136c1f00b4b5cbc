package io.warmgate.bench.operator;

import java.time.Duration;

/**
 * The size of one run of {@link FleetFootprintBench}.
 *
 * @param policies CachePolicies, each on its own Rollout, in one namespace
 * @param deployments unrelated Deployments, no policy targets them, spread over {@code namespaces}
 * @param secrets unrelated Secrets of {@code secretBytes} each, no policy names them
 * @param namespaces how many namespaces hold the unrelated objects
 * @param singles policies created one at a time once the fleet is Ready, to time a new policy
 * @param steady the window over which steady-state API requests and Valkey commands are counted
 */
record FleetSettings(int policies, int deployments, int secrets, int secretBytes, int namespaces,
    int singles, Duration steady) {

  /** The fleet: 5,000 policies, 20,000 Deployments and 5,000 Secrets of 64 KiB. */
  static final FleetSettings FULL =
      new FleetSettings(5_000, 20_000, 5_000, 64 * 1024, 20, 20, Duration.ofSeconds(60));

  /** What CI runs: the same steps with a tenth of the objects. */
  static final FleetSettings QUICK =
      new FleetSettings(500, 2_000, 500, 64 * 1024, 4, 5, Duration.ofSeconds(10));

  FleetSettings {
    if (policies < 1 || deployments < 0 || secrets < 0 || namespaces < 1 || singles < 1) {
      throw new IllegalArgumentException("a fleet needs at least 1 policy, 1 namespace and 1 "
          + "single, and no negative count; got " + this);
    }
    if (steady.compareTo(Duration.ofSeconds(5)) < 0) {
      throw new IllegalArgumentException("the steady window must be at least 5 s, got " + steady);
    }
  }

  /** Objects no policy is about: what the operator must leave out of its heap. */
  int unrelatedObjects() {
    return deployments + secrets;
  }
}
