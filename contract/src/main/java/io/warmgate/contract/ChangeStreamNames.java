package io.warmgate.contract;

import java.util.regex.Pattern;

/**
 * What a Spanner change stream name may be, as a CachePolicy's {@code spec.changeStream.name},
 * {@value AgentVariables#CHANGE_STREAM} and the agent's watcher accept it: a Spanner identifier,
 * because the watcher puts it into {@code READ_<name>(...)} and into a Valkey key.
 */
public final class ChangeStreamNames {

  /** The OpenAPI pattern of {@code spec.changeStream.name}, with {@link #MAX_LENGTH}. */
  public static final String PATTERN = "^[A-Za-z][A-Za-z0-9_]*$";

  /** Longest change stream name Spanner accepts. */
  public static final int MAX_LENGTH = 128;

  /** {@link #PATTERN} and {@link #MAX_LENGTH} in words, for error messages. */
  public static final String RULE = "a letter, then up to 127 letters, digits or '_', as in "
      + "CREATE CHANGE STREAM <name>";

  private static final Pattern VALID = Pattern.compile(PATTERN);

  private ChangeStreamNames() {}

  /** Whether {@code name} follows {@link #RULE}; false for null. */
  public static boolean isValid(String name) {
    return name != null && name.length() <= MAX_LENGTH && VALID.matcher(name).matches();
  }
}
