package io.warmgate.bench;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves forward by a fixed step every time it is read. Given to a cache with a short
 * L1 TTL, it expires every L1 entry before its next read, so each lookup goes to L2.
 */
final class SteppingClock implements InstantSource {

  private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());
  private final long stepMillis;

  SteppingClock(long stepMillis) {
    this.stepMillis = stepMillis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.addAndGet(stepMillis));
  }

  @Override
  public long millis() {
    return millis.addAndGet(stepMillis);
  }
}
