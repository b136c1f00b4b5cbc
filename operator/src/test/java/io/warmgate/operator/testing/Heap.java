package io.warmgate.operator.testing;

import java.lang.management.ManagementFactory;

/** The heap of this JVM, where a test runs the operator, as heap-bound tests measure it. */
public final class Heap {

  private Heap() {}

  /** Bytes of heap in use after three full collections, each given 200 ms to settle. */
  public static long usedAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
