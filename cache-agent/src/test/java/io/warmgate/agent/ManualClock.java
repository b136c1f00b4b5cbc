package io.warmgate.agent;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that moves only when a test says so. */
public final class ManualClock implements InstantSource {

  private final AtomicReference<Instant> now;

  public ManualClock() {
    this(Instant.parse("2026-03-01T12:00:00Z"));
  }

  public ManualClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  public void advance(Duration d) {
    now.updateAndGet(t -> t.plus(d));
  }
}
