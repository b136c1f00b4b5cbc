package io.warmgate.agent.preload;

import io.warmgate.contract.valkey.WarmJobState;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A warm job as read from {@code {wg:<cache>}:warm:<hash>}, and the transitions the worker makes:
 * {@code Open → Running} when a pod takes it (or {@code Running → Running} when another pod takes
 * it over), progress while {@code Running}, then {@code Done}; a job that cannot be read becomes
 * {@code Failed} with a message naming the field. Immutable.
 *
 * @param target how many ids of the id list to load
 * @param rate the most ids per second to load
 * @param batchSize ids per origin call
 * @param state the job's state
 * @param filled ids loaded so far
 * @param errors ids whose load failed so far
 * @param cursor the index into the id list of the next id to load
 */
record WarmJob(long target, double rate, int batchSize, WarmJobState state, long filled,
    long errors, long cursor) {

  /** The largest batch accepted: one Spanner query of this many ids is still cheap. */
  static final int MAX_BATCH_SIZE = 10_000;
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,15}(\\.[0-9]{1,15})?");
  private static final String STATE_NAMES = Arrays.stream(WarmJobState.values())
      .map(Enum::name).collect(Collectors.joining(", "));

  /** A job hash that cannot be worked on; the message names the field, its value and the fix. */
  static final class InvalidJobException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidJobException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Reads a job from the fields of its hash. {@code filled}, {@code errors} and {@code cursor} may
   * be absent (0); {@code target}, {@code rate}, {@code batchSize} and {@code state} are required.
   *
   * @throws InvalidJobException naming the first field that is missing or malformed
   */
  static WarmJob parse(Map<String, String> fields) throws InvalidJobException {
    WarmJobState state = state(fields);
    long target = count(fields, "target", true);
    double rate = rate(fields);
    long batchSize = count(fields, "batchSize", true);
    if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      throw invalid("batchSize", fields.get("batchSize"), "an integer from 1 to " + MAX_BATCH_SIZE);
    }
    long filled = count(fields, "filled", false);
    long errors = count(fields, "errors", false);
    long cursor = count(fields, "cursor", false);
    if (cursor > target) {
      throw invalid("cursor", fields.get("cursor"), "at most target (" + target + ")");
    }
    return new WarmJob(target, rate, (int) batchSize, state, filled, errors, cursor);
  }

  /** Returns the job as taken by {@code pod}: {@code Running}, same progress. */
  WarmJob start() {
    return new WarmJob(target, rate, batchSize, WarmJobState.Running, filled, errors, cursor);
  }

  /** Returns the job after a batch of which {@code loaded} ids were loaded and {@code failed} failed. */
  WarmJob advance(int loaded, int failed) {
    if (state != WarmJobState.Running) {
      throw new IllegalStateException("a " + state + " job does not advance");
    }
    return new WarmJob(target, rate, batchSize, state, filled + loaded, errors + failed,
        cursor + loaded + failed);
  }

  /** Returns the job marked {@code Done}. */
  WarmJob done() {
    if (state != WarmJobState.Running) {
      throw new IllegalStateException("a " + state + " job cannot be done");
    }
    return new WarmJob(target, rate, batchSize, WarmJobState.Done, filled, errors, cursor);
  }

  /** Returns the index one past the last id to load, given the length of the id list. */
  long end(long listLength) {
    return Math.min(target, listLength);
  }

  /** Returns the fields the worker writes for this job's state and progress. */
  Map<String, String> progressFields(String owner, long nowMillis) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("state", state.name());
    out.put("filled", Long.toString(filled));
    out.put("errors", Long.toString(errors));
    out.put("cursor", Long.toString(cursor));
    out.put("owner", owner);
    out.put("updatedAt", Long.toString(nowMillis));
    return out;
  }

  /** Returns the fields that mark a job {@code Failed} with {@code message}. */
  static Map<String, String> failedFields(String message, String owner, long nowMillis) {
    Map<String, String> out = new LinkedHashMap<>();
    out.put("state", WarmJobState.Failed.name());
    out.put("message", message);
    out.put("owner", owner);
    out.put("updatedAt", Long.toString(nowMillis));
    return out;
  }

  private static WarmJobState state(Map<String, String> fields) throws InvalidJobException {
    String value = fields.get("state");
    if (value == null) {
      throw missing("state");
    }
    WarmJobState state = WarmJobState.named(value.trim());
    if (state == null) {
      throw invalid("state", value, "one of " + STATE_NAMES);
    }
    return state;
  }

  private static long count(Map<String, String> fields, String name, boolean required)
      throws InvalidJobException {
    String value = fields.get(name);
    if (value == null || value.isBlank()) {
      if (required) {
        throw missing(name);
      }
      return 0;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw invalid(name, value, "a non-negative integer");
  }

  private static double rate(Map<String, String> fields) throws InvalidJobException {
    String value = fields.get("rate");
    if (value == null || value.isBlank()) {
      throw missing("rate");
    }
    // Plain decimals only: Double.parseDouble would also take "NaN", "1e999" or "5d".
    if (DECIMAL.matcher(value.trim()).matches()) {
      double rate = Double.parseDouble(value.trim());
      if (rate > 0 && !Double.isInfinite(rate)) {
        return rate;
      }
    }
    throw invalid("rate", value, "a positive number of ids per second, e.g. 500");
  }

  private static InvalidJobException missing(String field) {
    return new InvalidJobException("warm job field '" + field + "' is missing: the operator must "
        + "set it when opening the job");
  }

  private static InvalidJobException invalid(String field, String value, String expected) {
    return new InvalidJobException(String.format(Locale.ROOT,
        "warm job field '%s' is '%s': expected %s", field, value, expected));
  }
}
