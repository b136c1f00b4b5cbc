package io.warmgate.bench.operator;

/** Thread.sleep that turns an interrupt into an exception ending the benchmark. */
final class Sleep {

  private Sleep() {}

  static void millis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
