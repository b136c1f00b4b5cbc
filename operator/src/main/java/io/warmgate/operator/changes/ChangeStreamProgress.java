package io.warmgate.operator.changes;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.contract.Durations;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.ChangeStreamStatus;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.status.Reasons;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The operator's view of a policy's change-stream reader: the hash
 * {@code {wg:<cacheName>}:changes:<stream>} that the reading pod's {@code ChangeStreamWatcher}
 * (spanner-origin) saves every second ({@code watermark}, {@code lagMs}, {@code owner},
 * {@code updatedAt}), turned into {@code status.changeStream} and the {@code ChangesFollowed}
 * condition.
 *
 * <ul>
 *   <li><b>Fresh</b>: {@code updatedAt} at most {@link #FRESH_FOR} before the operator's clock.
 *       A reader saves every second and renews its lock every 3 s; a lock of a dead reader lapses
 *       after 10 s and another pod takes over within one renew period, so a takeover never looks
 *       stale.
 *   <li><b>Lag</b>: the operator's clock minus {@code watermark}, so that it keeps growing when no
 *       reader saves any more; from {@code lagMs} plus the time since {@code updatedAt} only when
 *       the watermark does not parse. Never negative (clocks of pods and operator may differ).
 *   <li><b>Lag bound</b>: the longer of {@link #MIN_LAG_BOUND} and {@link #HEARTBEATS_OF_LAG}
 *       heartbeats ({@link #lagBound}). A partition without changes reports progress once per
 *       heartbeat, so a lag of about one heartbeat is normal.
 * </ul>
 *
 * <p>{@code ChangesFollowed} is True ({@code Following}) when the hash is fresh and the lag within
 * the bound; False {@code NoReader} when the hash is missing or stale; False {@code WatermarkLost}
 * when it is fresh but a reader found the saved watermark gone and started from then, until
 * {@code watermarkLostUntil} (the reader's time of loss plus the cache's {@code maxStaleness}: rows
 * changed before the loss may be served until then); False {@code Lagging} when it is fresh but
 * the lag exceeds the bound; Unknown {@code NotChecked} when Valkey could not be
 * read or the hash holds neither a readable watermark nor lagMs.
 */
public final class ChangeStreamProgress {

  /** Longest time since the reader's last save for the reader to count as running. */
  public static final Duration FRESH_FOR = Duration.ofSeconds(15);
  /** The lag bound of short heartbeats: a reader further behind is {@code Lagging}. */
  public static final Duration MIN_LAG_BOUND = Duration.ofSeconds(10);
  /** The lag bound of long heartbeats, in heartbeats. */
  public static final int HEARTBEATS_OF_LAG = 3;

  static final String WATERMARK = "watermark";
  static final String LAG_MS = "lagMs";
  static final String OWNER = "owner";
  static final String UPDATED_AT = "updatedAt";
  static final String WATERMARK_LOST_AT = "watermarkLostAt";
  static final String WATERMARK_LOST_UNTIL = "watermarkLostUntil";

  private ChangeStreamProgress() {}

  /**
   * What the operator reports: {@code status.changeStream} and the {@code ChangesFollowed}
   * condition's status, reason and message.
   */
  public record Outcome(ChangeStreamStatus status, String condition, String reason,
      String message) {}

  /**
   * Reads the reader's hash of {@code spec}'s stream from the cache's Valkey (one {@code HGETALL};
   * the key carries the cache's hash tag, so on a cluster it goes to the primary of that slot) and
   * evaluates it at {@code now}.
   *
   * @throws io.lettuce.core.RedisException if Valkey cannot be read, naming the key when it holds
   *     another type than a hash
   */
  public static Outcome read(RedisClusterCommands<String, String> valkey, String cacheName,
      ChangeStreamSpec spec, Instant now) {
    String key = new ControlKeys(cacheName).changes(spec.getName());
    Map<String, String> hash;
    try {
      hash = valkey.hgetall(key);
    } catch (RedisCommandExecutionException e) {
      if (String.valueOf(e.getMessage()).startsWith("WRONGTYPE")) {
        throw new RedisCommandExecutionException("key " + key + " holds a value "
            + "of another type than the hash docs/valkey-layout.md gives it; delete it, and the "
            + "reader writes it again", e);
      }
      throw e;
    }
    return evaluate(key, spec, hash == null ? Map.of() : hash, now);
  }

  /**
   * Evaluates the fields of hash {@code key} (empty when the key does not exist) at {@code now}.
   */
  static Outcome evaluate(String key, ChangeStreamSpec spec, Map<String, String> hash,
      Instant now) {
    String stream = spec.getName();
    ChangeStreamStatus status = new ChangeStreamStatus();
    status.setName(stream);
    status.setObservedAt(rfc3339(now));
    Instant updatedAt = epochMillis(hash.get(UPDATED_AT));
    if (hash.isEmpty() || updatedAt == null) {
      return new Outcome(status, Condition.FALSE, Reasons.NO_READER, "No reader of change stream "
          + stream + " has saved its progress in Valkey (key " + key + "): " + whatToCheck(stream));
    }
    String owner = hash.get(OWNER);
    status.setReader(owner);
    status.setWatermark(hash.get(WATERMARK));
    status.setUpdatedAt(rfc3339(updatedAt));
    Duration age = nonNegative(Duration.between(updatedAt, now));
    Duration lag = lag(hash, updatedAt, now);
    if (lag != null) {
      status.setLagSeconds(Math.round(lag.toMillis() / 100.0) / 10.0);
    }
    String reader = owner == null ? "The reader" : "Reader " + owner;
    if (age.compareTo(FRESH_FOR) > 0) {
      return new Outcome(status, Condition.FALSE, Reasons.NO_READER, "The last reader of change "
          + "stream " + stream + (owner == null ? "" : ", " + owner + ",") + " saved its progress "
          + seconds(age) + " ago, more than the " + FRESH_FOR.toSeconds() + " s within which a "
          + "running reader (or the pod taking over from one) saves it: no pod reads the stream "
          + "now, and changes after " + hash.get(WATERMARK) + " are not invalidated; "
          + whatToCheck(stream));
    }
    if (lag == null) {
      return new Outcome(status, Condition.UNKNOWN, Reasons.NOT_CHECKED, reader + " of change "
          + "stream " + stream + " saved neither a readable watermark ('" + hash.get(WATERMARK)
          + "') nor lagMs ('" + hash.get(LAG_MS) + "') in " + key + "; it saves them again every "
          + "second, so if this stays, delete the key");
    }
    Instant lostAt = epochMillis(hash.get(WATERMARK_LOST_AT));
    Instant lostUntil = epochMillis(hash.get(WATERMARK_LOST_UNTIL));
    if (lostAt != null && lostUntil != null && now.isBefore(lostUntil)) {
      return new Outcome(status, Condition.FALSE, Reasons.WATERMARK_LOST, reader + " of change "
          + "stream " + stream + " found no saved watermark in " + key + " at " + rfc3339(lostAt)
          + " (Valkey restarted without persistence, or the key was evicted or deleted) and "
          + "reads from then: rows changed between the lost watermark and then were not "
          + "invalidated, and pods may serve them until " + rfc3339(lostUntil) + " (maxStaleness "
          + "after the loss). To drop them sooner, restart the pods (L1) and delete the cache's "
          + "value keys; to avoid it, give Valkey persistence or a noeviction policy");
    }
    Duration bound = lagBound(spec);
    if (lag.compareTo(bound) > 0) {
      return new Outcome(status, Condition.FALSE, Reasons.LAGGING, reader + " of change stream "
          + stream + " is " + seconds(lag) + " behind (watermark " + hash.get(WATERMARK)
          + "), more than " + seconds(bound) + " (" + MIN_LAG_BOUND.toSeconds() + " s or "
          + HEARTBEATS_OF_LAG + " heartbeats, whichever is longer): row changes since then may "
          + "still be served from the cache; check that pod's log ('change stream " + stream
          + ": ...') for failing invalidations or Spanner errors, and the Spanner instance's load");
    }
    return new Outcome(status, Condition.TRUE, Reasons.FOLLOWING, reader + " follows change "
        + "stream " + stream + ": " + seconds(lag) + " behind (watermark " + hash.get(WATERMARK)
        + "), saved " + seconds(age) + " ago");
  }

  /**
   * The outcome when the reader's progress was not read, keeping what was last read of the same
   * stream in {@code previous}.
   */
  public static Outcome notChecked(ChangeStreamSpec spec, ChangeStreamStatus previous,
      String why) {
    ChangeStreamStatus status = previous != null && Objects.equals(previous.getName(),
        spec.getName()) ? previous : new ChangeStreamStatus();
    status.setName(spec.getName());
    return new Outcome(status, Condition.UNKNOWN, Reasons.NOT_CHECKED,
        "The progress of change stream " + spec.getName() + " was not read from Valkey: " + why);
  }

  /** The lag beyond which the reader is {@code Lagging}, for the spec's heartbeat. */
  static Duration lagBound(ChangeStreamSpec spec) {
    Duration heartbeat;
    try {
      heartbeat = Durations.parse(spec.getHeartbeat() == null
          ? new ChangeStreamSpec().getHeartbeat() : spec.getHeartbeat());
    } catch (IllegalArgumentException e) {
      heartbeat = Durations.parse(new ChangeStreamSpec().getHeartbeat());
    }
    Duration heartbeats = heartbeat.multipliedBy(HEARTBEATS_OF_LAG);
    return heartbeats.compareTo(MIN_LAG_BOUND) > 0 ? heartbeats : MIN_LAG_BOUND;
  }

  private static Duration lag(Map<String, String> hash, Instant updatedAt, Instant now) {
    String watermark = hash.get(WATERMARK);
    if (watermark != null) {
      try {
        return nonNegative(Duration.between(Instant.parse(watermark), now));
      } catch (DateTimeParseException e) {
        // Falls back to lagMs below.
      }
    }
    try {
      long lagMs = Long.parseLong(String.valueOf(hash.get(LAG_MS)).trim());
      return nonNegative(Duration.ofMillis(lagMs).plus(Duration.between(updatedAt, now)));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Instant epochMillis(String value) {
    if (value == null) {
      return null;
    }
    try {
      return Instant.ofEpochMilli(Long.parseLong(value.trim()));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Duration nonNegative(Duration d) {
    return d.isNegative() ? Duration.ZERO : d;
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static String rfc3339(Instant instant) {
    return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
  }

  private static String whatToCheck(String stream) {
    return "check that the target's pods run a ChangeStreamWatcher (warmgate-spanner-origin), "
        + "that they have WARMGATE_CHANGE_STREAM=" + stream + " (injected into pods created after "
        + "spec.changeStream was set: re-create older ones), that change stream " + stream
        + " exists in the Spanner database (CREATE CHANGE STREAM " + stream + " FOR ...), and the "
        + "pods' log lines 'change stream " + stream + ": ...'";
  }
}
