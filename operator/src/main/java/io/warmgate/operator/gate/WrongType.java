package io.warmgate.operator.gate;

import io.lettuce.core.RedisCommandExecutionException;
import java.util.function.Supplier;

/**
 * Names the key in a WRONGTYPE error, so that a hold caused by garbage in Valkey says which key to
 * fix instead of only that Valkey cannot be read.
 */
final class WrongType {

  private WrongType() {}

  /**
   * The result of {@code read} of {@code key}.
   *
   * @throws RedisCommandExecutionException naming the key when it holds another type
   */
  static <T> T naming(String key, Supplier<T> read) {
    try {
      return read.get();
    } catch (RedisCommandExecutionException e) {
      if (isWrongType(e)) {
        throw new RedisCommandExecutionException("key " + key + " holds a value of another type "
            + "than docs/valkey-layout.md gives it (" + e.getMessage() + "); delete or fix it",
            e);
      }
      throw e;
    }
  }

  static boolean isWrongType(Throwable e) {
    return e instanceof RedisCommandExecutionException
        && String.valueOf(e.getMessage()).startsWith("WRONGTYPE");
  }
}
