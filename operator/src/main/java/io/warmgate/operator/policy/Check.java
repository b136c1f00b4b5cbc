package io.warmgate.operator.policy;

import java.util.Optional;
import java.util.stream.Stream;

/** The outcome of one check of a policy: passed, or failed with a reason and a message. */
record Check(boolean ok, String reason, String message) {

  static Check passed() {
    return new Check(true, null, null);
  }

  static Check ok(String reason, String message) {
    return new Check(true, reason, message);
  }

  static Check failed(String reason, String message) {
    return new Check(false, reason, message);
  }

  /** The first of {@code checks} that failed, in their order of importance. */
  static Optional<Check> firstFailure(Check... checks) {
    return Stream.of(checks).filter(c -> !c.ok()).findFirst();
  }
}
