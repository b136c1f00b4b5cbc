package io.warmgate.bench.release;

import java.util.List;
import java.util.Map;

/**
 * What one release cost, over its window: from the first new pod until {@link
 * ReleaseParams#windowSeconds} later, or, when that is 0, one L2 TTL after the last old pod left.
 * Origin reads count ids (a batch of 100 ids is 100 reads).
 *
 * @param originReads ids read from the origin in the window, by old and new pods
 * @param refreshReads the part of {@code originReads} that refresh-ahead reloaded before expiry:
 *     the steady cost of keeping hot keys in L2, paid with or without a release
 * @param newPodReads the part of {@code originReads} read by new-version pods (preload included)
 * @param newPodRefreshReads the part of {@code newPodReads} that refresh-ahead reloaded
 * @param requested distinct ids looked up in the window, by any pod
 * @param union distinct ids in (requested ∪ preloaded): what a release must read at least once
 * @param preloaded ids of the warm job (0 without one)
 * @param wasted preloaded ids no new pod looked up in the window
 * @param requestedByNew distinct ids new pods looked up in the window
 * @param newUnion distinct ids in (requestedByNew ∪ preloaded): what the new version must read at
 *     least once
 * @param recalled ids of {@code requestedByNew} that were preloaded
 * @param newDuplicates new-version reads of an id read by the new version less than the L2 TTL
 *     less the refresh-ahead window earlier ({@link OriginLog#newVersionDuplicates})
 * @param steadyPerSecond origin reads/s of the old fleet in steady state, before the release
 * @param peakPerSecond the most origin reads in one 1-second bucket of the window
 * @param steadyCallMillis the mean origin call of the old fleet in steady state, ms
 * @param windowCallMillis the mean origin call in the window, ms: far above the steady one when
 *     the release queued calls at the origin
 * @param timeline origin reads per 1-second bucket, from {@code leadSeconds} before the release
 * @param releaseSeconds first new pod → last old pod gone
 * @param gateSeconds first new pod → the gate released the canary (null when not gated)
 * @param gatePhase the gate's phase at release (null when not gated)
 * @param coverageAtRelease the coverage the gate reported at release, % (null when not gated)
 * @param registeredSeconds first new pod → its agent seen registered in Valkey (null when not
 *     gated)
 * @param gateSteps each step of a gated release as {@link GateSteps} first saw it, seconds after
 *     the canary started (empty when not gated)
 * @param l2PastBound the fleet's L2 commands in the window that ran past their bound (a
 *     lookup's is the L2 budget): a lookup whose read is among them went to the origin instead. On
 *     a healthy L2, a sign that the machine running the fleet is short of CPU
 * @param failureKinds failed requests by exception and message start
 * @param originLoad the modelled origin's load in the window, null with the emulator
 */
record ReleaseResult(Strategy strategy, long originReads, long refreshReads, long newPodReads,
    long newPodRefreshReads, long requested, long union, long preloaded, long wasted,
    long requestedByNew, long newUnion, long recalled, long newDuplicates, double steadyPerSecond,
    double peakPerSecond, double steadyCallMillis, double windowCallMillis, List<Long> timeline,
    int leadSeconds, long lookups, long failures, long l2PastBound,
    double p50Millis, double p99Millis, double releaseSeconds, double windowSeconds,
    Double gateSeconds, String gatePhase, Double coverageAtRelease, Double registeredSeconds,
    Map<String, Double> gateSteps, Map<String, Long> failureKinds, OriginLoad originLoad) {

  /**
   * What a release asked of the modelled origin (a stand-in).
   *
   * @param nodes its nodes
   * @param capacity single-row reads/s at 100 % CPU
   * @param steadyCpu the CPU share the old fleet's steady traffic asked for, 0–1
   * @param peakCpu the CPU share the window's busiest second asked for: the model's cost of what
   *     arrived, past 1 when the release asked for more than the nodes serve
   * @param calls origin calls in the window
   * @param deadlineExceeded calls in the window that failed with {@code DEADLINE_EXCEEDED}
   * @param resourceExhausted calls in the window refused with {@code RESOURCE_EXHAUSTED}
   * @param cpuTimeline the CPU share asked each second, the buckets of {@code timeline}
   */
  record OriginLoad(double nodes, double capacity, double steadyCpu, double peakCpu, long calls,
      long deadlineExceeded, long resourceExhausted, List<Double> cpuTimeline) {}

  /** Reads that filled a missing key (misses and preload): the release's own cost. */
  long fillReads() {
    return originReads - refreshReads;
  }

  /** Fill reads per id requested ∪ preloaded: 1 when every id was read once. */
  double fillsPerUnionId() {
    return union == 0 ? 0 : (double) fillReads() / union;
  }

  /**
   * The new version's own cost: its pods' reads that filled a missing key (misses and preload,
   * not refresh-ahead) per id it requested or preloaded. 1 when each such id was read once.
   */
  double newFillsPerNewId() {
    return newUnion == 0 ? 0 : (double) (newPodReads - newPodRefreshReads) / newUnion;
  }

  /** Duplicate reads of the new version per id it requested or preloaded; 0 is one read per id. */
  double newDuplicatesPerNewId() {
    return newUnion == 0 ? 0 : (double) newDuplicates / newUnion;
  }

  /** All reads, refreshes included, per id requested ∪ preloaded. */
  double readsPerUnionId() {
    return union == 0 ? 0 : (double) originReads / union;
  }

  /** Share of the preloaded ids that no new pod asked for, or 0 without a preload. */
  double wasteShare() {
    return preloaded == 0 ? 0 : (double) wasted / preloaded;
  }

  /** Share of the ids new pods asked for that were preloaded. */
  double recall() {
    return requestedByNew == 0 ? 0 : (double) recalled / requestedByNew;
  }
}
