package io.warmgate.operator.valkey;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.warmgate.operator.status.Reasons;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/** Turns a failure to reach Valkey into a condition reason and an actionable message. */
final class ValkeyFailures {

  private ValkeyFailures() {}

  static ProbeResult classify(String address, Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String text = String.valueOf(t.getMessage());
      String upper = text.toUpperCase(Locale.ROOT);
      if (t instanceof ConnectException || upper.contains("CONNECTION REFUSED")) {
        return fail(Reasons.CONNECTION_REFUSED, "Connection to " + address + " refused; check that"
            + " Valkey runs there and that spec.valkey.addresses names its Service and port");
      }
      if (t instanceof UnknownHostException) {
        return fail(Reasons.UNKNOWN_HOST, "Host of " + address + " does not resolve; check "
            + "spec.valkey.addresses");
      }
      if (t instanceof SSLException) {
        return fail(Reasons.TLS_FAILED, "TLS handshake with " + address + " failed (" + text
            + "); check spec.valkey.tls and the server's certificate");
      }
      if (t instanceof RedisCommandExecutionException
          && (upper.startsWith("WRONGPASS") || upper.startsWith("NOAUTH")
              || upper.contains("INVALID PASSWORD") || upper.contains("AUTH")
              || upper.startsWith("NOPERM"))) {
        return fail(Reasons.AUTH_FAILED, "Valkey at " + address + " refused the credentials ("
            + firstLine(text) + "); check spec.valkey.username and the password in "
            + "spec.valkey.passwordSecretKeyRef");
      }
      if (t instanceof RedisCommandTimeoutException
          || t.getClass().getSimpleName().contains("Timeout")) {
        return fail(Reasons.TIMEOUT, "Valkey at " + address + " did not answer in time; check "
            + "network policies and the server's load");
      }
    }
    return fail(Reasons.CONNECTION_FAILED, "Cannot reach Valkey at " + address + ": "
        + firstLine(String.valueOf(rootCause(failure).getMessage())));
  }

  private static ProbeResult fail(String reason, String message) {
    return ProbeResult.failed(reason, message);
  }

  private static Throwable rootCause(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }
}
