package io.warmgate.sim.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SpannerCapacityTest {

  private static final double ONE_READ = 1 / SpannerCapacity.SINGLE_ROW_READS_PER_NODE;

  @Test
  void aBatchCostsOneQueryOverheadPlusItsRows() {
    SpannerCapacity one = new SpannerCapacity(SpannerCapacity.Settings.of(1));

    assertThat(one.cost(1, 1)).isCloseTo(ONE_READ, within(1e-12));
    assertThat(one.cost(1, 200)).isCloseTo((0.5 + 200 * 0.5) * ONE_READ, within(1e-12));
    assertThat(one.cost(200, 200)).isCloseTo(200 * ONE_READ, within(1e-12));
    assertThat(one.cost(1, 200)).isLessThan(one.cost(200, 200) / 1.9);
  }

  @Test
  void aNodeAnswersItsPublishedSingleRowRateWithoutErrors() {
    SpannerCapacity one = new SpannerCapacity(SpannerCapacity.Settings.of(1));
    SpannerCapacity.Answer last = null;
    for (int s = 0; s < 10; s++) {
      last = one.offer(s, 1, 22_000, 22_000);
    }

    assertThat(last.ok()).isEqualTo(22_000);
    assertThat(last.deadlineExceeded() + last.resourceExhausted()).isZero();
    assertThat(last.utilisation()).isCloseTo(22_000 / 22_500.0, within(1e-6));
  }

  @Test
  void latencyIsSingleDigitMillisecondsAtLowLoadAndGrowsWithUtilisation() {
    double[] latencies = new double[3];
    double[] loads = {0.10, 0.65, 0.95};
    for (int i = 0; i < loads.length; i++) {
      SpannerCapacity model = new SpannerCapacity(SpannerCapacity.Settings.of(2));
      long perSecond = Math.round(loads[i] * 2 * SpannerCapacity.SINGLE_ROW_READS_PER_NODE);
      SpannerCapacity.Answer a = null;
      for (int s = 0; s < 20; s++) {
        a = model.offer(s, 1, perSecond, perSecond);
      }
      latencies[i] = a.meanLatencySeconds();
      assertThat(a.utilisation()).isCloseTo(loads[i], within(0.01));
    }

    assertThat(latencies[0]).isBetween(0.001, 0.009);
    assertThat(latencies[1]).isGreaterThan(2 * latencies[0]);
    assertThat(latencies[2]).isGreaterThan(5 * latencies[1]);
  }

  @Test
  void pastCapacityWhatCannotBeAnsweredInTimeFailsWithDeadlineExceeded() {
    SpannerCapacity model = new SpannerCapacity(SpannerCapacity.Settings.of(1)
        .withDeadline(Duration.ofSeconds(2)));
    SpannerCapacity.Answer[] answers = new SpannerCapacity.Answer[10];
    for (int s = 0; s < answers.length; s++) {
      answers[s] = model.offer(s, 1, 45_000, 45_000);
    }

    // Twice the capacity: the queue grows by a second of work each second until a query behind
    // it could not be answered within the deadline; from then on the nodes answer their
    // capacity in time and the rest fails after waiting the deadline, costing no CPU.
    assertThat(answers[0].ok()).isEqualTo(45_000);
    assertThat(answers[0].meanLatencySeconds()).isGreaterThan(0.1);
    for (int s = 6; s < answers.length; s++) {
      assertThat(answers[s].ok()).isCloseTo(22_500, within(10L));
      assertThat(answers[s].deadlineExceeded()).isCloseTo(22_500, within(10L));
      assertThat(answers[s].resourceExhausted()).isZero();
      assertThat(answers[s].meanLatencySeconds()).isBetween(1.0, 2.0);
      assertThat(answers[s].utilisation()).isCloseTo(1.0, within(1e-9));
    }
  }

  @Test
  void aQueueCapShorterThanTheDeadlineRefusesWithResourceExhausted() {
    SpannerCapacity model = new SpannerCapacity(new SpannerCapacity.Settings(1, 0.5,
        Duration.ofMillis(4), Duration.ofSeconds(5), Duration.ofMillis(500)));
    SpannerCapacity.Answer last = null;
    for (int s = 0; s < 10; s++) {
      last = model.offer(s, 1, 45_000, 45_000);
    }

    assertThat(last.ok()).isCloseTo(22_500, within(10L));
    assertThat(last.resourceExhausted()).isCloseTo(22_500, within(10L));
    assertThat(last.deadlineExceeded()).isZero();
    assertThat(last.meanLatencySeconds()).isLessThan(1.0);
  }

  @Test
  void anOverloadDrainsOnceTheLoadFalls() {
    SpannerCapacity model = new SpannerCapacity(SpannerCapacity.Settings.of(1));
    for (int s = 0; s < 3; s++) {
      model.offer(s, 1, 40_000, 40_000);
    }
    SpannerCapacity.Answer after = null;
    for (int s = 3; s < 30; s++) {
      after = model.offer(s, 1, 5_000, 5_000);
    }

    assertThat(after.ok()).isEqualTo(5_000);
    assertThat(after.meanLatencySeconds()).isLessThan(0.01);
  }

  @Test
  void refusesOfferingsOutOfTimeOrderAndImpossibleSettings() {
    SpannerCapacity model = new SpannerCapacity(SpannerCapacity.Settings.of(1));
    model.offer(5, 1, 1, 1);

    assertThatThrownBy(() -> model.offer(4, 1, 1, 1)).hasMessageContaining("time order");
    assertThatThrownBy(() -> model.offer(7, 1, 0, 3)).hasMessageContaining("rows need a query");
    assertThatThrownBy(() -> SpannerCapacity.Settings.of(0)).hasMessageContaining("nodes must be");
  }
}
