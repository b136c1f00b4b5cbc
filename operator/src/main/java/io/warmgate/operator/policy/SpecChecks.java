package io.warmgate.operator.policy;

import io.warmgate.contract.ChangeStreamNames;
import io.warmgate.contract.Durations;
import io.warmgate.contract.KeySpaceVersions;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.TlsVerify;
import io.warmgate.operator.model.ValkeyMode;
import io.warmgate.operator.model.ValkeyReadFrom;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.model.WarmupMode;
import io.warmgate.operator.model.WarmupSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The checks the CRD also makes, repeated here for specs admitted under an older or hand-edited
 * CRD. A spec that fails them is reported as {@code Ready=False InvalidSpec}, never thrown.
 */
final class SpecChecks {

  private SpecChecks() {}

  /** The problems of {@code spec}, each naming the field, its value and the fix; empty if none. */
  static List<String> problems(CachePolicySpec spec) {
    List<String> problems = new ArrayList<>();
    if (spec == null) {
      problems.add("spec is missing; see examples/cachepolicy-minimal.yaml");
      return problems;
    }
    if (spec.getTargetRef() == null || spec.getTargetRef().getKind() == null
        || isBlank(spec.getTargetRef().getName())) {
      problems.add("spec.targetRef needs kind (Rollout, Deployment or StatefulSet) and name");
    }
    if (isBlank(spec.getCacheName())) {
      problems.add("spec.cacheName is required");
    }
    String version = spec.getKeySpaceVersion();
    if (version != null && !KeySpaceVersions.isValid(version)) {
      problems.add("spec.keySpaceVersion '" + version + "' is invalid: use "
          + KeySpaceVersions.RULE + ", or remove it");
    }
    Optional<Duration> l1 = duration(problems, "spec.l1Ttl", spec.getL1Ttl(), true);
    Optional<Duration> l2 = duration(problems, "spec.l2Ttl", spec.getL2Ttl(), true);
    Optional<Duration> negative = spec.getNegativeTtl() == null ? Optional.empty()
        : duration(problems, "spec.negativeTtl", spec.getNegativeTtl(), true);
    Optional<Duration> refresh =
        duration(problems, "spec.refreshAhead", spec.getRefreshAhead(), true);
    Optional<Duration> lock = duration(problems, "spec.lockTtl", spec.getLockTtl(), true);
    duration(problems, "spec.l2Timeout", spec.getL2Timeout(), true);
    Optional<Duration> staleness =
        duration(problems, "spec.maxStaleness", spec.getMaxStaleness(), true);
    duration(problems, "spec.staleIfError", spec.getStaleIfError(), false);
    if (l1.isPresent() && l2.isPresent() && staleness.isPresent()
        && l1.get().plus(l2.get()).compareTo(staleness.get()) > 0) {
      problems.add("spec.l1Ttl + spec.l2Ttl (" + spec.getL1Ttl() + " + " + spec.getL2Ttl()
          + ") must not exceed spec.maxStaleness (" + spec.getMaxStaleness() + ")");
    }
    if (refresh.isPresent() && l2.isPresent() && refresh.get().compareTo(l2.get()) >= 0) {
      problems.add("spec.refreshAhead (" + spec.getRefreshAhead()
          + ") must be shorter than spec.l2Ttl (" + spec.getL2Ttl() + ")");
    }
    if (lock.isPresent() && refresh.isPresent() && lock.get().compareTo(refresh.get()) >= 0) {
      problems.add("spec.lockTtl (" + spec.getLockTtl()
          + ") must be shorter than spec.refreshAhead (" + spec.getRefreshAhead() + ")");
    }
    if (negative.isPresent() && l2.isPresent() && negative.get().compareTo(l2.get()) > 0) {
      problems.add("spec.negativeTtl (" + spec.getNegativeTtl()
          + ") must not exceed spec.l2Ttl (" + spec.getL2Ttl() + ")");
    }
    checkValkey(problems, spec.getValkey());
    checkWarmup(problems, spec.getWarmup());
    checkChangeStream(problems, spec.getChangeStream());
    return problems;
  }

  /**
   * What makes a valid {@code spec} unable to ever warm a canary, each naming the field, its value
   * and the fix; empty if nothing. The CRD refuses these for new policies (CEL); a policy stored
   * before is still gated (fail-closed, bounded by maxWait), and reported {@code Ready=False}.
   * Duration fields are assumed valid ({@link #problems} is empty).
   */
  static List<String> cannotWork(CachePolicySpec spec) {
    List<String> found = new ArrayList<>();
    ValkeySpec valkey = spec.getValkey();
    if (valkey != null && valkey.getAddresses() != null) {
      List<String> seen = new ArrayList<>();
      for (String address : valkey.getAddresses()) {
        if (seen.contains(address)) {
          found.add("spec.valkey.addresses lists " + address + " more than once; list each "
              + "host:port once");
        }
        seen.add(address);
      }
    }
    WarmupSpec warmup = spec.getWarmup() == null ? new WarmupSpec() : spec.getWarmup();
    WarmupSpec defaults = new WarmupSpec();
    int hotSetSize = or(warmup.getHotSetSize(), defaults.getHotSetSize());
    if (hotSetSize > WarmupSpec.MAX_HOT_SET_SIZE) {
      found.add(String.format(Locale.ROOT, "spec.warmup.hotSetSize %,d is more than the %,d hot "
          + "ids an agent records; lower it to at most %d", hotSetSize,
          WarmupSpec.MAX_HOT_SET_SIZE, WarmupSpec.MAX_HOT_SET_SIZE));
    }
    if (or(warmup.getMode(), defaults.getMode()) == WarmupMode.Preload) {
      int rate = Math.max(1, or(warmup.getPreloadRate(), defaults.getPreloadRate()));
      int coverage = or(warmup.getMinCoverage(), defaults.getMinCoverage());
      long seconds = preloadSeconds(hotSetSize, coverage, rate);
      String preload = String.format(Locale.ROOT, "Preload of warmup.minCoverage %d%% of "
          + "warmup.hotSetSize %,d at warmup.preloadRate %,d/s takes %d s", coverage, hotSetSize,
          rate, seconds);
      String l2Ttl = or(spec.getL2Ttl(), new CachePolicySpec().getL2Ttl());
      if (Duration.ofSeconds(seconds).compareTo(Durations.parse(l2Ttl)) > 0) {
        found.add(preload + ", longer than spec.l2Ttl (" + l2Ttl + "): the first values expire "
            + "before enough are written, so coverage can never be reached; raise preloadRate or "
            + "l2Ttl, or lower hotSetSize");
      }
      String maxWait = or(warmup.getMaxWait(), defaults.getMaxWait());
      if (Duration.ofSeconds(seconds).compareTo(Durations.parse(maxWait)) > 0) {
        found.add(preload + ", longer than spec.warmup.maxWait (" + maxWait + "), so the gate "
            + "always times out; raise preloadRate or maxWait, or lower hotSetSize");
      }
    }
    return found;
  }

  /**
   * Seconds a Preload at {@code rate} ids/s needs to load {@code minCoverage} percent of
   * {@code hotSetSize} ids, rounded up; the CRD's CEL rule computes the same.
   */
  static long preloadSeconds(int hotSetSize, int minCoverage, int rate) {
    long ids = (long) hotSetSize * minCoverage;
    long perSecond = 100L * rate;
    return (ids + perSecond - 1) / perSecond;
  }

  private static <T> T or(T value, T fallback) {
    return value != null ? value : fallback;
  }

  private static void checkValkey(List<String> problems, ValkeySpec valkey) {
    if (valkey == null || valkey.getAddresses() == null || valkey.getAddresses().isEmpty()) {
      problems.add("spec.valkey.addresses needs at least one host:port, such as valkey:6379");
      return;
    }
    for (String address : valkey.getAddresses()) {
      int colon = address == null ? -1 : address.lastIndexOf(':');
      int port = -1;
      if (colon > 0) {
        try {
          port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
          port = -1;
        }
      }
      if (port < 1 || port > 65535) {
        problems.add("spec.valkey.addresses entry '" + address
            + "' is not host:port with a port from 1 to 65535, such as valkey:6379");
      }
    }
    boolean cluster = valkey.getMode() == ValkeyMode.Cluster;
    boolean tls = Boolean.TRUE.equals(valkey.getTls());
    if (!cluster && valkey.getAddresses().size() > 1) {
      problems.add("spec.valkey.addresses lists " + valkey.getAddresses().size() + " addresses "
          + "but spec.valkey.mode is Standalone: set mode: Cluster if they are seed nodes of a "
          + "Valkey cluster, or list the one server");
    }
    if (valkey.getReadFrom() == ValkeyReadFrom.ReplicaPreferred && !cluster) {
      problems.add("spec.valkey.readFrom ReplicaPreferred needs spec.valkey.mode: Cluster, as a "
          + "standalone server has no replicas the agents can find");
    }
    if (valkey.getTlsCaSecretRef() != null && !tls) {
      problems.add("spec.valkey.tlsCaSecretRef needs spec.valkey.tls: true, as the CA only "
          + "checks TLS servers");
    }
    if (valkey.getTlsVerify() == TlsVerify.CA && !tls) {
      problems.add("spec.valkey.tlsVerify CA applies to TLS connections; set spec.valkey.tls: "
          + "true or remove tlsVerify");
    }
    if (valkey.getUsername() != null && valkey.getPasswordSecretKeyRef() == null) {
      problems.add("spec.valkey.username requires spec.valkey.passwordSecretKeyRef");
    }
  }

  private static void checkWarmup(List<String> problems, WarmupSpec warmup) {
    if (warmup == null) {
      return;
    }
    if (warmup.getMinCoverage() != null
        && (warmup.getMinCoverage() < 0 || warmup.getMinCoverage() > 100)) {
      problems.add("spec.warmup.minCoverage (" + warmup.getMinCoverage()
          + ") must be a percentage from 0 to 100");
    }
    if ((warmup.getMinHitRatio() == null) != (warmup.getHitRatioWindow() == null)) {
      problems.add("spec.warmup.minHitRatio and spec.warmup.hitRatioWindow are set together");
    }
    if (warmup.getGateStep() != null && warmup.getGateStep() < 0) {
      problems.add("spec.warmup.gateStep (" + warmup.getGateStep()
          + ") must be the 0-based index of a canary pause step");
    }
    duration(problems, "spec.warmup.maxWait", warmup.getMaxWait(), true);
    if (warmup.getHitRatioWindow() != null) {
      duration(problems, "spec.warmup.hitRatioWindow", warmup.getHitRatioWindow(), true);
    }
  }

  private static void checkChangeStream(List<String> problems, ChangeStreamSpec changes) {
    if (changes == null) {
      return;
    }
    if (!ChangeStreamNames.isValid(changes.getName())) {
      problems.add("spec.changeStream.name '" + changes.getName() + "' is invalid: use "
          + ChangeStreamNames.RULE + ", or remove spec.changeStream");
    }
    if (changes.getHeartbeat() != null) {
      Optional<Duration> heartbeat = duration(problems, "spec.changeStream.heartbeat",
          changes.getHeartbeat(), true);
      if (heartbeat.isPresent()
          && (heartbeat.get().compareTo(Durations.parse(ChangeStreamSpec.MIN_HEARTBEAT)) < 0
          || heartbeat.get().compareTo(Durations.parse(ChangeStreamSpec.MAX_HEARTBEAT)) > 0)) {
        problems.add("spec.changeStream.heartbeat (" + changes.getHeartbeat() + ") must be from "
            + ChangeStreamSpec.MIN_HEARTBEAT + " to " + ChangeStreamSpec.MAX_HEARTBEAT
            + " (the range Spanner takes), such as 1s");
      }
    }
  }

  private static Optional<Duration> duration(List<String> problems, String field, String value,
      boolean positive) {
    if (value == null) {
      problems.add(field + " is missing");
      return Optional.empty();
    }
    try {
      Duration parsed = Durations.parse(value);
      if (positive && (parsed.isZero() || parsed.isNegative())) {
        problems.add(field + " must be a positive duration, not " + value);
        return Optional.empty();
      }
      return Optional.of(parsed);
    } catch (IllegalArgumentException e) {
      problems.add(field + ": " + e.getMessage());
      return Optional.empty();
    }
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
