package io.warmgate.bench.fleet;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the benchmark moves by hand, shared by a whole fleet so TTL cycles take no real time. */
final class ManualClock implements InstantSource {

  private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());

  void advance(Duration step) {
    millis.addAndGet(step.toMillis());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }
}
