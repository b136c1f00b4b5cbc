package io.warmgate.operator;

import io.warmgate.contract.Durations;
import io.warmgate.operator.inject.WebhookSettings;
import io.warmgate.operator.valkey.AddressAllowlist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's settings, read from environment variables.
 *
 * @param namespaces namespaces to watch; empty watches all ({@code WARMGATE_NAMESPACES},
 *     comma-separated)
 * @param leaderElection whether to elect a leader through a Lease ({@code
 *     WARMGATE_LEADER_ELECTION}, default true)
 * @param leaseName the Lease's name ({@code WARMGATE_LEASE_NAME}, default warmgate-operator)
 * @param leaseNamespace the Lease's namespace ({@code WARMGATE_LEASE_NAMESPACE}, default the
 *     pod's namespace from {@code POD_NAMESPACE} or the service account mount)
 * @param identity this replica's identity in the Lease ({@code POD_NAME}, default the host name)
 * @param lease how long a Lease is valid, renewed and retried ({@code WARMGATE_LEASE_*}, see
 *     {@link LeaseTimings})
 * @param httpPort port of /healthz, /readyz and /metrics ({@code WARMGATE_HTTP_PORT}, default
 *     8080; 0 picks a free port)
 * @param valkeyRecheck how often each policy's Valkey is probed again ({@code
 *     WARMGATE_VALKEY_RECHECK_INTERVAL}, default 30s)
 * @param valkeyTimeout how long one Valkey connect or PING may take ({@code
 *     WARMGATE_VALKEY_TIMEOUT}, default 2s)
 * @param valkeyAllowed the Valkey addresses policies may name ({@code
 *     WARMGATE_VALKEY_ALLOWED_ADDRESSES}, comma-separated {@code host[:port]} patterns, default
 *     {@value AddressAllowlist#IN_CLUSTER}; see {@link AddressAllowlist})
 * @param shutdownTimeout how long a graceful stop waits for running reconciliations ({@code
 *     WARMGATE_SHUTDOWN_TIMEOUT}, default 20s)
 * @param webhook the pod-injection webhook ({@code WARMGATE_WEBHOOK_*}, see {@link
 *     WebhookSettings})
 */
public record OperatorSettings(Set<String> namespaces, boolean leaderElection, String leaseName,
    String leaseNamespace, String identity, LeaseTimings lease, int httpPort,
    Duration valkeyRecheck, Duration valkeyTimeout, AddressAllowlist valkeyAllowed,
    Duration shutdownTimeout,
    WebhookSettings webhook) {

  static final Path SERVICE_ACCOUNT_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  /** Reads the settings from {@code env}, failing with a message naming the variable. */
  public static OperatorSettings fromEnvironment(Map<String, String> env) {
    Set<String> namespaces = Arrays.stream(env.getOrDefault("WARMGATE_NAMESPACES", "").split(","))
        .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    boolean leaderElection = bool(env, "WARMGATE_LEADER_ELECTION", true);
    String podNamespace = env.get("POD_NAMESPACE");
    if ((podNamespace == null || podNamespace.isBlank())
        && Files.isReadable(SERVICE_ACCOUNT_NAMESPACE)) {
      try {
        podNamespace = Files.readString(SERVICE_ACCOUNT_NAMESPACE, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        podNamespace = null;
      }
    }
    String leaseNamespace = env.get("WARMGATE_LEASE_NAMESPACE");
    if (leaseNamespace == null || leaseNamespace.isBlank()) {
      leaseNamespace = podNamespace;
    }
    if (leaderElection && (leaseNamespace == null || leaseNamespace.isBlank())) {
      throw new IllegalArgumentException("Leader election needs the Lease's namespace: set "
          + "WARMGATE_LEASE_NAMESPACE (or POD_NAMESPACE), or set WARMGATE_LEADER_ELECTION=false");
    }
    String identity =
        env.getOrDefault("POD_NAME", env.getOrDefault("HOSTNAME", "warmgate-operator"));
    int port;
    try {
      port = Integer.parseInt(env.getOrDefault("WARMGATE_HTTP_PORT", "8080"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("WARMGATE_HTTP_PORT='" + env.get("WARMGATE_HTTP_PORT")
          + "' is not a port number; use e.g. 8080");
    }
    return new OperatorSettings(namespaces, leaderElection,
        env.getOrDefault("WARMGATE_LEASE_NAME", "warmgate-operator"), leaseNamespace, identity,
        LeaseTimings.of(duration(env, "WARMGATE_LEASE_DURATION", "15s"),
            duration(env, "WARMGATE_LEASE_RENEW_DEADLINE", "10s"),
            duration(env, "WARMGATE_LEASE_RETRY_PERIOD", "2s")),
        port, duration(env, "WARMGATE_VALKEY_RECHECK_INTERVAL", "30s"),
        duration(env, "WARMGATE_VALKEY_TIMEOUT", "2s"),
        AddressAllowlist.parse(env.getOrDefault("WARMGATE_VALKEY_ALLOWED_ADDRESSES",
            AddressAllowlist.IN_CLUSTER)),
        duration(env, "WARMGATE_SHUTDOWN_TIMEOUT", "20s"),
        WebhookSettings.fromEnvironment(env, podNamespace));
  }

  /**
   * The leader-election timings (JOSDK's defaults): a follower takes over at most {@code duration}
   * after the leader's last renewal; the leader gives up (and exits) when it could not renew for
   * {@code renewDeadline}; every replica tries again each {@code retryPeriod}.
   *
   * @param duration {@code WARMGATE_LEASE_DURATION}, default 15s
   * @param renewDeadline {@code WARMGATE_LEASE_RENEW_DEADLINE}, default 10s
   * @param retryPeriod {@code WARMGATE_LEASE_RETRY_PERIOD}, default 2s
   */
  public record LeaseTimings(Duration duration, Duration renewDeadline, Duration retryPeriod) {

    /**
     * Checks duration &gt; renewDeadline &gt; 1.2 × retryPeriod, the order the Lease client needs.
     *
     * @throws IllegalArgumentException naming the variables otherwise
     */
    static LeaseTimings of(Duration duration, Duration renewDeadline, Duration retryPeriod) {
      // The Lease client jitters the retry period by up to 20 %.
      if (duration.compareTo(renewDeadline) <= 0
          || renewDeadline.toMillis() * 10 <= retryPeriod.toMillis() * 12) {
        throw new IllegalArgumentException("Lease timings must satisfy WARMGATE_LEASE_DURATION ("
            + duration + ") > WARMGATE_LEASE_RENEW_DEADLINE (" + renewDeadline + ") > 1.2 x "
            + "WARMGATE_LEASE_RETRY_PERIOD (" + retryPeriod + "); e.g. 15s, 10s, 2s");
      }
      return new LeaseTimings(duration, renewDeadline, retryPeriod);
    }
  }

  private static boolean bool(Map<String, String> env, String name, boolean fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new IllegalArgumentException(name + "='" + value + "' must be true or false");
    }
    return Boolean.parseBoolean(value);
  }

  private static Duration duration(Map<String, String> env, String name, String fallback) {
    String value = env.getOrDefault(name, fallback);
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
  }
}
