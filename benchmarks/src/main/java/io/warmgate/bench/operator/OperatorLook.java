package io.warmgate.bench.operator;

import io.warmgate.testing.OperatorProcess;

/**
 * One look at the operator JVM: its process figures, its live heap after a full GC (which the
 * class histogram forces), and how many metric series it exports.
 */
record OperatorLook(ProcessSample process, ClassHistogram heap, int series) {

  static OperatorLook of(OperatorProcess operator) {
    ClassHistogram heap = ClassHistogram.of(operator.pid());
    ProcessSample process = ProcessSample.of(operator);
    return new OperatorLook(process, heap, series(operator.get("metrics")));
  }

  /** Samples in a Prometheus text exposition: every line that is not a comment. */
  static int series(String metrics) {
    return (int) metrics.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
  }

  double liveHeapMib() {
    return heap.totalBytes() / 1048576.0;
  }
}
