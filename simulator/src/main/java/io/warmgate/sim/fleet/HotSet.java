package io.warmgate.sim.fleet;

import java.util.Arrays;
import java.util.List;

/**
 * The ids the gate measures coverage on (and a Preload loads), hottest first, with when the
 * preload reads each: in batches at the policy's rate from {@code preloadStart}, or never.
 */
final class HotSet {

  final int[] ids;
  private final int[] positionOf;
  final String text;
  private double preloadStart = Double.POSITIVE_INFINITY;
  private int batch = 1;
  private double rate = 1;

  HotSet(List<String> chosen, String text) {
    this.text = text;
    ids = chosen.stream().mapToInt(Integer::parseInt).toArray();
    int max = Arrays.stream(ids).max().orElse(0);
    positionOf = new int[max + 1];
    Arrays.fill(positionOf, -1);
    for (int j = 0; j < ids.length; j++) {
      positionOf[ids[j]] = j;
    }
  }

  int size() {
    return ids.length;
  }

  /** The position of {@code id} in the hot set, or -1. */
  int position(int id) {
    return id < positionOf.length ? positionOf[id] : -1;
  }

  /** The preload starts reading at {@code start}, {@code batch} ids at a time, {@code rate}/s. */
  void preload(double start, int batch, double rate) {
    this.preloadStart = start;
    this.batch = batch;
    this.rate = rate;
  }

  boolean preloads() {
    return preloadStart != Double.POSITIVE_INFINITY;
  }

  int batch() {
    return batch;
  }

  /** When the preload reads the id at {@code position}; infinite without a preload. */
  double preloadAt(int position) {
    if (!preloads() || position < 0) {
      return Double.POSITIVE_INFINITY;
    }
    // The pacer lets a batch through once the previous ones' ids have been paid for.
    return preloadStart + (double) (position / batch) * batch / rate;
  }

  /** When the preload has read the last batch; infinite without a preload. */
  double preloadEnd() {
    return ids.length == 0 ? preloadStart : preloadAt(ids.length - 1);
  }
}
