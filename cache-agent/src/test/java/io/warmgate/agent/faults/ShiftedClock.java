package io.warmgate.agent.faults;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** The system clock plus an offset a test can move forward, so TTLs pass without waiting for them. */
final class ShiftedClock implements InstantSource {

  private final AtomicLong offsetNanos = new AtomicLong();

  @Override
  public Instant instant() {
    return Instant.now().plusNanos(offsetNanos.get());
  }

  void advance(Duration d) {
    offsetNanos.addAndGet(d.toNanos());
  }
}
