package io.warmgate.operator.inject;

import io.warmgate.contract.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Settings of the pod-injection webhook, read from environment variables.
 *
 * @param enabled whether the operator serves the webhook ({@code WARMGATE_WEBHOOK_ENABLED},
 *     default false; the Helm chart enables it)
 * @param port HTTPS port of {@value WebhookServer#PATH} ({@code WARMGATE_WEBHOOK_PORT}, default
 *     8443; 0 picks a free port)
 * @param certMode where the serving certificate comes from ({@code WARMGATE_WEBHOOK_CERT_MODE},
 *     default {@code SelfSigned})
 * @param certDir with {@code Files}: the directory holding {@code tls.crt} and {@code tls.key}
 *     ({@code WARMGATE_WEBHOOK_CERT_DIR}, default /etc/warmgate/webhook-tls)
 * @param namespace with {@code SelfSigned}: the namespace of the certificate Secret ({@code
 *     WARMGATE_WEBHOOK_NAMESPACE}, default {@code POD_NAMESPACE} or the service account's)
 * @param certSecret with {@code SelfSigned}: the Secret holding the CA and serving certificate
 *     ({@code WARMGATE_WEBHOOK_CERT_SECRET}, default warmgate-operator-webhook-tls)
 * @param hosts with {@code SelfSigned}: DNS names and IPs of the serving certificate ({@code
 *     WARMGATE_WEBHOOK_HOSTS}, comma-separated, default
 *     {@code warmgate-operator-webhook.<namespace>.svc})
 * @param configuration with {@code SelfSigned}: the MutatingWebhookConfiguration whose caBundle
 *     the operator keeps ({@code WARMGATE_WEBHOOK_CONFIGURATION}, default warmgate-operator)
 * @param refreshInterval how often the certificate is re-read or renewed and the caBundle checked
 *     ({@code WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL}, default 1m)
 */
public record WebhookSettings(boolean enabled, int port, CertMode certMode, Path certDir,
    String namespace, String certSecret, List<String> hosts, String configuration,
    Duration refreshInterval) {

  /** Where the webhook's serving certificate comes from. */
  public enum CertMode {
    /** The operator issues its own CA and certificate and keeps the caBundle current. */
    SelfSigned,
    /** Mounted files (cert-manager); the issuer keeps the caBundle current. */
    Files
  }

  /**
   * Reads the settings from {@code env}.
   *
   * @param podNamespace the operator's namespace when known, else null
   * @throws IllegalArgumentException naming the variable and the fix when a value is invalid
   */
  public static WebhookSettings fromEnvironment(Map<String, String> env, String podNamespace) {
    boolean enabled = switch (env.getOrDefault("WARMGATE_WEBHOOK_ENABLED", "false")
        .toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false", "" -> false;
      default -> throw new IllegalArgumentException("WARMGATE_WEBHOOK_ENABLED='"
          + env.get("WARMGATE_WEBHOOK_ENABLED") + "' must be true or false");
    };
    int port;
    try {
      port = Integer.parseInt(env.getOrDefault("WARMGATE_WEBHOOK_PORT", "8443"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("WARMGATE_WEBHOOK_PORT='"
          + env.get("WARMGATE_WEBHOOK_PORT") + "' is not a port number; use e.g. 8443");
    }
    CertMode mode;
    String modeValue = env.getOrDefault("WARMGATE_WEBHOOK_CERT_MODE", "SelfSigned");
    try {
      mode = CertMode.valueOf(modeValue);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("WARMGATE_WEBHOOK_CERT_MODE='" + modeValue
          + "' must be SelfSigned or Files");
    }
    String namespace = env.getOrDefault("WARMGATE_WEBHOOK_NAMESPACE", podNamespace);
    if (namespace != null && namespace.isBlank()) {
      namespace = null;
    }
    List<String> hosts = Arrays.stream(env.getOrDefault("WARMGATE_WEBHOOK_HOSTS", "").split(","))
        .map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (hosts.isEmpty() && namespace != null) {
      hosts = List.of("warmgate-operator-webhook." + namespace + ".svc");
    }
    if (enabled && mode == CertMode.SelfSigned && namespace == null) {
      throw new IllegalArgumentException("The webhook's self-signed certificate is kept in a "
          + "Secret of the operator's namespace: set POD_NAMESPACE (or WARMGATE_WEBHOOK_NAMESPACE),"
          + " or set WARMGATE_WEBHOOK_CERT_MODE=Files");
    }
    String interval = env.getOrDefault("WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL", "1m");
    Duration refresh;
    try {
      refresh = Durations.parse(interval);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL: "
          + e.getMessage(), e);
    }
    if (refresh.isZero()) {
      throw new IllegalArgumentException("WARMGATE_WEBHOOK_CERT_REFRESH_INTERVAL must be positive,"
          + " such as 1m");
    }
    return new WebhookSettings(enabled, port, mode,
        Path.of(env.getOrDefault("WARMGATE_WEBHOOK_CERT_DIR", "/etc/warmgate/webhook-tls")),
        namespace,
        env.getOrDefault("WARMGATE_WEBHOOK_CERT_SECRET", "warmgate-operator-webhook-tls"), hosts, env.getOrDefault("WARMGATE_WEBHOOK_CONFIGURATION", "warmgate-operator"), refresh);
  }
}
