package io.warmgate.contract;

import java.util.regex.Pattern;

/**
 * What a key space version may be: the label that a CachePolicy's {@code spec.keySpaceVersion},
 * {@value AgentVariables#KEY_SPACE_VERSION} and the agent's {@code @KeySpaceVersion} feed into
 * the schema hash. Restricted so that it can never change how a schema hash description is read.
 */
public final class KeySpaceVersions {

  /** The OpenAPI pattern of {@code spec.keySpaceVersion}, with {@link #MAX_LENGTH}. */
  public static final String PATTERN = "^[A-Za-z0-9._-]+$";

  /** Longest key space version. */
  public static final int MAX_LENGTH = 63;

  /** {@link #PATTERN} and {@link #MAX_LENGTH} in words, for error messages. */
  public static final String RULE =
      "1 to 63 letters, digits, '.', '_' or '-', such as 2 or 2026-03-cents";

  private static final Pattern VALID = Pattern.compile(PATTERN);

  private KeySpaceVersions() {}

  /** Whether {@code version} follows {@link #RULE}; false for null. */
  public static boolean isValid(String version) {
    return version != null && version.length() <= MAX_LENGTH && VALID.matcher(version).matches();
  }
}
