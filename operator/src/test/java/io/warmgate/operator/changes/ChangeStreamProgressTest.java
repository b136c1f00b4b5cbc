package io.warmgate.operator.changes;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.ChangeStreamStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.status.Reasons;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the reader's hash, as ChangeStreamWatcher saves it, becomes status and condition. */
class ChangeStreamProgressTest {

  static final String KEY = "{wg:deals}:changes:DealChanges";
  static final Instant NOW = Instant.parse("2026-03-01T12:00:30.500Z");
  static final ChangeStreamSpec SPEC = new ChangeStreamSpec("DealChanges", "1s");

  static Map<String, String> saved(Instant watermark, long lagMs, Instant updatedAt) {
    return Map.of("watermark", watermark.toString(), "lagMs", Long.toString(lagMs),
        "owner", "deals-7f9-abc/1b2c", "updatedAt", Long.toString(updatedAt.toEpochMilli()));
  }

  @Test
  void aFreshReaderWithinTheBoundIsFollowedWithTheLagByTheOperatorsClock() {
    ChangeStreamProgress.Outcome outcome = ChangeStreamProgress.evaluate(KEY, SPEC,
        saved(NOW.minusMillis(1_800), 700, NOW.minusMillis(1_000)), NOW);

    assertThat(outcome.condition()).isEqualTo(Condition.TRUE);
    assertThat(outcome.reason()).isEqualTo(Reasons.FOLLOWING);
    assertThat(outcome.message()).contains("deals-7f9-abc/1b2c").contains("1.8 s behind");
    ChangeStreamStatus status = outcome.status();
    assertThat(status.getName()).isEqualTo("DealChanges");
    assertThat(status.getReader()).isEqualTo("deals-7f9-abc/1b2c");
    assertThat(status.getWatermark()).isEqualTo("2026-03-01T12:00:28.700Z");
    assertThat(status.getLagSeconds()).isEqualTo(1.8);
    assertThat(status.getUpdatedAt()).isEqualTo("2026-03-01T12:00:29Z");
    assertThat(status.getObservedAt()).isEqualTo("2026-03-01T12:00:30Z");
  }

  /**
   * A reader that found its watermark gone (Valkey restarted without persistence) reads again
   * from then, within the lag bound; but rows changed before it may be served until
   * watermarkLostUntil, and the condition must say so until then.
   */
  @Test
  void aLostWatermarkIsReportedUntilTheValuesCachedBeforeItHaveExpired() {
    Map<String, String> hash = new java.util.HashMap<>(
        saved(NOW.minusMillis(1_800), 700, NOW.minusMillis(1_000)));
    Instant lostAt = NOW.minusSeconds(20);
    hash.put("watermarkLostAt", Long.toString(lostAt.toEpochMilli()));
    hash.put("watermarkLostUntil", Long.toString(lostAt.plusSeconds(300).toEpochMilli()));

    ChangeStreamProgress.Outcome outcome = ChangeStreamProgress.evaluate(KEY, SPEC, hash, NOW);
    assertThat(outcome.condition()).isEqualTo(Condition.FALSE);
    assertThat(outcome.reason()).isEqualTo("WatermarkLost");
    assertThat(outcome.message()).contains("deals-7f9-abc/1b2c")
        .contains("2026-03-01T12:00:10Z").contains("2026-03-01T12:05:10Z")
        .contains("persistence");
    assertThat(outcome.status().getLagSeconds()).isEqualTo(1.8);

    // Once every value cached before the loss has expired, the reader is followed again.
    ChangeStreamProgress.Outcome later = ChangeStreamProgress.evaluate(KEY, SPEC, Map.of(
        "watermark", NOW.plusSeconds(299).toString(), "owner", "deals-7f9-abc/1b2c",
        "updatedAt", Long.toString(NOW.plusSeconds(300).toEpochMilli()),
        "watermarkLostAt", hash.get("watermarkLostAt"),
        "watermarkLostUntil", hash.get("watermarkLostUntil")), NOW.plusSeconds(301));
    assertThat(later.reason()).isEqualTo(Reasons.FOLLOWING);
  }

  @Test
  void spannerTimestampsWithNanosecondsParse() {
    Map<String, String> hash = new java.util.HashMap<>(
        saved(NOW, 0, NOW.minusMillis(200)));
    hash.put("watermark", "2026-03-01T12:00:29.123456789Z");

    assertThat(ChangeStreamProgress.evaluate(KEY, SPEC, hash, NOW).status().getLagSeconds())
        .isEqualTo(1.4);
  }

  @Test
  void noHashIsNoReaderNamingWhatToCheck() {
    ChangeStreamProgress.Outcome outcome =
        ChangeStreamProgress.evaluate(KEY, SPEC, Map.of(), NOW);

    assertThat(outcome.condition()).isEqualTo(Condition.FALSE);
    assertThat(outcome.reason()).isEqualTo(Reasons.NO_READER);
    assertThat(outcome.message()).contains(KEY).contains("ChangeStreamWatcher")
        .contains("WARMGATE_CHANGE_STREAM=DealChanges")
        .contains("CREATE CHANGE STREAM DealChanges");
    assertThat(outcome.status().getName()).isEqualTo("DealChanges");
    assertThat(outcome.status().getLagSeconds()).isNull();
  }

  @Test
  void aHashNotSavedForLongerThanTheFreshnessWindowIsNoReaderWithAGrowingLag() {
    Instant last = NOW.minus(ChangeStreamProgress.FRESH_FOR).minusSeconds(1);
    ChangeStreamProgress.Outcome outcome = ChangeStreamProgress.evaluate(KEY, SPEC,
        saved(last.minusSeconds(1), 1_000, last), NOW);

    assertThat(outcome.condition()).isEqualTo(Condition.FALSE);
    assertThat(outcome.reason()).isEqualTo(Reasons.NO_READER);
    assertThat(outcome.message()).contains("saved its progress 16.0 s ago")
        .contains("WARMGATE_CHANGE_STREAM=DealChanges");
    assertThat(outcome.status().getLagSeconds()).isEqualTo(17.0);
    assertThat(outcome.status().getReader()).isEqualTo("deals-7f9-abc/1b2c");
  }

  @Test
  void aTakeoverWithinTheFreshnessWindowIsStillFollowed() {
    Instant last = NOW.minus(ChangeStreamProgress.FRESH_FOR);
    assertThat(ChangeStreamProgress.evaluate(KEY, SPEC, saved(NOW.minusSeconds(5), 0, last), NOW)
        .reason()).isEqualTo(Reasons.FOLLOWING);
  }

  @Test
  void aFreshReaderFurtherBehindThanTheBoundIsLagging() {
    ChangeStreamProgress.Outcome outcome = ChangeStreamProgress.evaluate(KEY, SPEC,
        saved(NOW.minusSeconds(11), 10_500, NOW.minusMillis(500)), NOW);

    assertThat(outcome.condition()).isEqualTo(Condition.FALSE);
    assertThat(outcome.reason()).isEqualTo(Reasons.LAGGING);
    assertThat(outcome.message()).contains("11.0 s behind").contains("more than 10.0 s");
    assertThat(outcome.status().getLagSeconds()).isEqualTo(11.0);
  }

  @Test
  void theBoundIsTenSecondsOrThreeHeartbeats() {
    assertThat(ChangeStreamProgress.lagBound(new ChangeStreamSpec("S", "100ms")))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(ChangeStreamProgress.lagBound(new ChangeStreamSpec("S", "1s")))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(ChangeStreamProgress.lagBound(new ChangeStreamSpec("S", "5m")))
        .isEqualTo(Duration.ofMinutes(15));
    assertThat(ChangeStreamProgress.evaluate(KEY, new ChangeStreamSpec("S", "1m"),
        saved(NOW.minusSeconds(100), 0, NOW), NOW).reason()).isEqualTo(Reasons.FOLLOWING);
  }

  @Test
  void anUnreadableWatermarkFallsBackToLagMsPlusTheTimeSinceItWasSaved() {
    Map<String, String> hash = new java.util.HashMap<>(saved(NOW, 1_200, NOW.minusMillis(300)));
    hash.put("watermark", "yesterday");

    ChangeStreamProgress.Outcome outcome = ChangeStreamProgress.evaluate(KEY, SPEC, hash, NOW);
    assertThat(outcome.reason()).isEqualTo(Reasons.FOLLOWING);
    assertThat(outcome.status().getLagSeconds()).isEqualTo(1.5);

    hash.put("lagMs", "soon");
    outcome = ChangeStreamProgress.evaluate(KEY, SPEC, hash, NOW);
    assertThat(outcome.condition()).isEqualTo(Condition.UNKNOWN);
    assertThat(outcome.reason()).isEqualTo(Reasons.NOT_CHECKED);
    assertThat(outcome.message()).contains("'yesterday'").contains(KEY);
  }

  @Test
  void aWatermarkAheadOfTheOperatorsClockIsNoLag() {
    assertThat(ChangeStreamProgress.evaluate(KEY, SPEC,
        saved(NOW.plusSeconds(2), 0, NOW.plusSeconds(2)), NOW).status().getLagSeconds())
        .isEqualTo(0.0);
  }

  @Test
  void notCheckedKeepsWhatWasLastReadOfTheSameStream() {
    ChangeStreamStatus previous = ChangeStreamProgress.evaluate(KEY, SPEC,
        saved(NOW.minusSeconds(1), 0, NOW), NOW).status();

    ChangeStreamProgress.Outcome same = ChangeStreamProgress.notChecked(SPEC, previous, "down");
    assertThat(same.condition()).isEqualTo(Condition.UNKNOWN);
    assertThat(same.message()).endsWith(": down");
    assertThat(same.status().getReader()).isEqualTo("deals-7f9-abc/1b2c");

    ChangeStreamProgress.Outcome other = ChangeStreamProgress.notChecked(
        new ChangeStreamSpec("Other", "1s"), previous, "down");
    assertThat(other.status().getName()).isEqualTo("Other");
    assertThat(other.status().getReader()).isNull();
  }
}
