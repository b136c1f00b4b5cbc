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

  /**
   * @param address the {@code host:port} that failed
   * @param failure what Lettuce threw
   * @param withPassword whether the policy gives a password
   */
  static ProbeResult classify(String address, Throwable failure, boolean withPassword) {
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
      if (t.getClass().getSimpleName().equals("NotSslRecordException")) {
        return fail(Reasons.TLS_MISMATCH, "Valkey at " + address + " answered the TLS handshake "
            + "in plain text: it does not use TLS; set spec.valkey.tls: false, or enable TLS on "
            + "the server");
      }
      if (t instanceof SSLException) {
        return fail(Reasons.TLS_FAILED, tlsProblem(address, firstLine(text)));
      }
      if (t instanceof RedisCommandExecutionException && upper.startsWith("NOAUTH")
          && !withPassword) {
        return fail(Reasons.AUTH_FAILED, "Valkey at " + address + " requires a password ("
            + firstLine(text) + "); set spec.valkey.passwordSecretKeyRef (and username for an "
            + "ACL user)");
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
        + cause(failure));
  }

  /** The first line of the root cause's message: a short why, for lists of nodes. */
  static String cause(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return firstLine(String.valueOf(root.getMessage()));
  }

  private static String tlsProblem(String address, String detail) {
    String upper = detail.toUpperCase(Locale.ROOT);
    if (upper.contains("PKIX") || upper.contains("UNABLE TO FIND VALID CERTIFICATION PATH")) {
      return "The certificate of " + address + " is not signed by a trusted CA (" + detail
          + "); put the CA that signed it in a Secret and name it in "
          + "spec.valkey.tlsCaSecretRef";
    }
    if (upper.contains("SUBJECT ALTERNATIVE") || upper.contains("NO NAME MATCHING")) {
      return "The certificate of " + address + " does not name that host (" + detail
          + "); address the server by a name its certificate lists, or set "
          + "spec.valkey.tlsVerify: CA";
    }
    return "TLS handshake with " + address + " failed (" + detail + "); check spec.valkey.tls, "
        + "spec.valkey.tlsCaSecretRef and the server's certificate";
  }

  private static ProbeResult fail(String reason, String message) {
    return ProbeResult.failed(reason, message);
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }
}
