package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PacerTest {

  /** A clock that only moves when the pacer sleeps (or the test says so). */
  private long now = 1_000_000_000L;
  private final List<Long> sleeps = new ArrayList<>();
  private long oversleep;

  private Pacer pacer(double rate) {
    return new Pacer(rate, () -> now, nanos -> {
      sleeps.add(nanos);
      now += nanos + oversleep;
    });
  }

  @Test
  void grantsNoMoreThanTheRateOverAnyPrefixPlusOneBatch() throws InterruptedException {
    Pacer pacer = pacer(100); // 100 permits/s, batches of 10
    long start = now;
    long granted = 0;
    for (int i = 0; i < 50; i++) {
      pacer.acquire(10);
      granted += 10;
      // granted ≤ rate × elapsed + one batch, in whole nanos: one permit = 10 ms at 100/s.
      long allowed = (now - start) / TimeUnit.MILLISECONDS.toNanos(10) + 10;
      assertThat(granted).isLessThanOrEqualTo(allowed);
    }
    // 500 permits at 100/s: the 50th batch is granted 4.9 s after the first.
    assertThat(now - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(4_900));
  }

  @Test
  void firstAcquisitionDoesNotWait() throws InterruptedException {
    pacer(5).acquire(1_000);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void idleTimeIsNotSavedUpAsABurst() throws InterruptedException {
    Pacer pacer = pacer(10);
    pacer.acquire(10); // books 1 s
    now += TimeUnit.SECONDS.toNanos(60); // idle for a minute
    pacer.acquire(10); // due long ago: no wait
    pacer.acquire(10); // but this one waits the full second of the previous batch
    assertThat(sleeps).containsExactly(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void oversleepingDoesNotLowerTheRate() throws InterruptedException {
    Pacer pacer = pacer(10);
    oversleep = TimeUnit.MILLISECONDS.toNanos(300);
    long start = now;
    for (int i = 0; i < 4; i++) {
      pacer.acquire(10);
    }
    // Due at 0, 1, 2, 3 s; each sleep ends 0.3 s late, and the next is booked from when it was due.
    assertThat(sleeps).containsExactly(TimeUnit.SECONDS.toNanos(1),
        TimeUnit.MILLISECONDS.toNanos(700), TimeUnit.MILLISECONDS.toNanos(700));
    assertThat(now - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(3_300));
  }

  @Test
  void fractionalRatesSpaceSinglePermits() throws InterruptedException {
    Pacer pacer = pacer(0.5);
    pacer.acquire(1);
    pacer.acquire(1);
    assertThat(sleeps).containsExactly(TimeUnit.SECONDS.toNanos(2));
  }

  @Test
  void refusesRatesThatAreNotPositiveAndFinite() {
    for (double rate : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> pacer(rate)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permitsPerSecond");
    }
  }

  @Test
  void aNewRateAppliesToThePermitsBookedFromThen() throws InterruptedException {
    Pacer pacer = pacer(100);
    long start = now;
    pacer.acquire(10); // booked at 100/s: the next is due 100 ms later
    pacer.rate(10);
    pacer.acquire(10); // waits the 100 ms, books 10 at 10/s: 1 s
    pacer.acquire(10);
    assertThat(now - start).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1_100));
  }
}
