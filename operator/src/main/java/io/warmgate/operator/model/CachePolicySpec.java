package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.warmgate.contract.Durations;
import io.warmgate.contract.KeySpaceVersions;

/**
 * The desired cache configuration of one workload. Every duration is a Kubernetes-style string
 * ({@code 500ms}, {@code 60s}, {@code 4m}, {@code 1h30m}); see {@link Durations}.
 */
@ValidationRule(
    value = "duration(self.l1Ttl) + duration(self.l2Ttl) <= duration(self.maxStaleness)",
    messageExpression = "'l1Ttl + l2Ttl (' + self.l1Ttl + ' + ' + self.l2Ttl + ') must not exceed "
        + "maxStaleness (' + self.maxStaleness + '); raise maxStaleness or shorten the TTLs'",
    fieldPath = ".maxStaleness")
@ValidationRule(value = "duration(self.refreshAhead) < duration(self.l2Ttl)",
    messageExpression = "'refreshAhead (' + self.refreshAhead + ') must be shorter than l2Ttl (' "
        + "+ self.l2Ttl + ')'",
    fieldPath = ".refreshAhead")
@ValidationRule(value = "duration(self.lockTtl) < duration(self.refreshAhead)",
    messageExpression = "'lockTtl (' + self.lockTtl + ') must be shorter than refreshAhead (' "
        + "+ self.refreshAhead + ')'",
    fieldPath = ".lockTtl")
@ValidationRule(value = "!has(self.negativeTtl) || duration(self.negativeTtl) <= duration(self.l2Ttl)",
    messageExpression = "'negativeTtl (' + self.negativeTtl + ') must not exceed l2Ttl (' "
        + "+ self.l2Ttl + ')'",
    fieldPath = ".negativeTtl")
@ValidationRule(value = CachePolicySpec.NOT_PRELOAD + "|| " + CachePolicySpec.PRELOAD_SECONDS
    + " <= duration(self.l2Ttl).getSeconds()",
    message = "with warmup.mode Preload, loading warmup.minCoverage percent of warmup.hotSetSize "
        + "at warmup.preloadRate per second must not take longer than l2Ttl, or the first values "
        + "expire before enough are written and coverage is never reached; raise preloadRate or "
        + "l2Ttl, or lower hotSetSize",
    fieldPath = ".warmup.hotSetSize")
@ValidationRule(value = CachePolicySpec.NOT_PRELOAD + "|| " + CachePolicySpec.PRELOAD_SECONDS
    + " <= duration(self.warmup.maxWait).getSeconds()",
    message = "with warmup.mode Preload, loading warmup.minCoverage percent of warmup.hotSetSize "
        + "at warmup.preloadRate per second must not take longer than warmup.maxWait, or the gate "
        + "always times out; raise preloadRate or maxWait, or lower hotSetSize",
    fieldPath = ".warmup.hotSetSize")
public class CachePolicySpec {

  /** CEL: the policy does not preload (defaults are applied before the rules run). */
  static final String NOT_PRELOAD = "!has(self.warmup) || !has(self.warmup.mode) "
      + "|| self.warmup.mode != 'Preload' || !has(self.warmup.hotSetSize) "
      + "|| !has(self.warmup.preloadRate) || !has(self.warmup.minCoverage) "
      + "|| !has(self.warmup.maxWait) ";
  /** CEL: seconds a Preload needs for minCoverage percent of hotSetSize at preloadRate. */
  static final String PRELOAD_SECONDS = "((self.warmup.hotSetSize * self.warmup.minCoverage + 100 * self.warmup.preloadRate - 1) / (100 * self.warmup.preloadRate))";

  @Required
  @JsonPropertyDescription("The Rollout, Deployment or StatefulSet, in this namespace, whose "
      + "pods use the cache. Its pods must carry the label warmgate.io/cache-policy=<this policy's name>.")
  private TargetRef targetRef;

  @Required
  @Size(min = 1, max = 63)
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
  @JsonPropertyDescription("Name of the cache, part of every Valkey key (wg:<cacheName>:...); "
      + "lowercase letters, digits and '-'. Policies sharing a Valkey need distinct names. "
      + "Injected as WARMGATE_CACHE_NAME.")
  private String cacheName;

  @Size(min = 1, max = KeySpaceVersions.MAX_LENGTH)
  @Pattern(KeySpaceVersions.PATTERN)
  @JsonPropertyDescription("A label that enters the schema hash of every pod's cache, for when "
      + "the meaning of cached values changes but their Java type does not: a new value puts "
      + "pods started with it in a new key space, and the rollout gate treats their release as a "
      + "schema change (holds, warms up, releases). 1 to 63 letters, digits, '.', '_' or '-', such "
      + "as 2 or 2026-03-cents. Unset: the hash of the type alone. Injected as "
      + "WARMGATE_KEY_SPACE_VERSION when pods are created, so a change applies to pods created "
      + "afterwards: change it together with the target's pod template so that the change is a "
      + "new revision.")
  private String keySpaceVersion;

  @Default("100000")
  @Min(1)
  @Max(100000000)
  @JsonPropertyDescription("Most entries a pod's L1 cache holds. Defaults to 100000. Injected as "
      + "WARMGATE_L1_MAX_SIZE.")
  private Long l1MaxSize = 100000L;

  @Default("60s")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "l1Ttl must be a positive duration, such as 60s")
  @JsonPropertyDescription("How long a value stays in a pod's in-process L1 cache. Defaults to "
      + "60s. Injected as WARMGATE_L1_TTL.")
  private String l1Ttl = "60s";

  @Default("4m")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "l2Ttl must be a positive duration, such as 4m")
  @JsonPropertyDescription("How long a value stays in the shared Valkey L2. Defaults to 4m. "
      + "Injected as WARMGATE_L2_TTL.")
  private String l2Ttl = "4m";

  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "negativeTtl must be a positive duration, such as 60s")
  @JsonPropertyDescription("How long an origin not-found answer is cached, in L1 and in L2. At "
      + "most l2Ttl. Unset: not-found answers live as long as values (l1Ttl, l2Ttl). Injected as "
      + "WARMGATE_NEGATIVE_TTL when set.")
  private String negativeTtl;

  @Default("60s")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "refreshAhead must be a positive duration, such as 60s")
  @JsonPropertyDescription("An L2 hit with less than this TTL left is returned and refreshed in "
      + "the background by the one pod that wins the refresh lock. Shorter than l2Ttl. Defaults "
      + "to 60s. Injected as WARMGATE_REFRESH_AHEAD.")
  private String refreshAhead = "60s";

  @Default("5s")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "lockTtl must be a positive duration, such as 5s")
  @JsonPropertyDescription("Expiry of the refresh lock, bounding how long a crashed refresher "
      + "blocks others. Shorter than refreshAhead. Defaults to 5s. Injected as WARMGATE_LOCK_TTL.")
  private String lockTtl = "5s";

  @Default("20ms")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s') && duration(self) <= duration('10s')",
      message = "l2Timeout must be a positive duration of at most 10s, such as 20ms")
  @JsonPropertyDescription("Budget for one L2 call; past it the lookup goes to the origin and the "
      + "circuit breaker counts a failure. At most 10s. Defaults to 20ms. Injected as "
      + "WARMGATE_L2_TIMEOUT.")
  private String l2Timeout = "20ms";

  @Default("5m")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "maxStaleness must be a positive duration, such as 5m")
  @JsonPropertyDescription("No value older than this since it left the origin is ever returned. "
      + "At least l1Ttl + l2Ttl. Defaults to 5m. Injected as WARMGATE_MAX_STALENESS.")
  private String maxStaleness = "5m";

  @Default("5m")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  // duration() also refuses what overflows a Go duration (above 2562047h), like the other TTLs.
  @ValidationRule(value = "duration(self) >= duration('0s')",
      message = "staleIfError must be a duration of at most 2562047h, such as 5m or 0s")
  @JsonPropertyDescription("When the origin fails, a held value younger than this is served "
      + "instead of an error; 0s never serves stale values. Defaults to 5m. Injected as "
      + "WARMGATE_STALE_IF_ERROR.")
  private String staleIfError = "5m";

  @Required
  @JsonPropertyDescription("The Valkey server shared as L2 by the target's pods.")
  private ValkeySpec valkey;

  @Default("{}")
  @JsonPropertyDescription("When a canary counts as warm and what the rollout gate does.")
  private WarmupSpec warmup = new WarmupSpec();

  @Default("{}")
  @JsonPropertyDescription("How the agent's configuration is injected into the target's pods.")
  private InjectionSpec injection = new InjectionSpec();

  @JsonPropertyDescription("Optional: a Spanner change stream over the origin's tables whose row "
      + "changes invalidate the affected ids in every pod and key space within about a second, "
      + "instead of after l1Ttl + l2Ttl. Setting it injects WARMGATE_CHANGE_STREAM and "
      + "WARMGATE_CHANGE_STREAM_HEARTBEAT; the application runs a ChangeStreamWatcher "
      + "(warmgate-spanner-origin, io.warmgate.spanner.changes) that maps each table's changes to "
      + "cached ids (examples/deal DealChanges is the example), and one elected pod reads the "
      + "stream. The operator reports the reader and its lag in status.changeStream and the "
      + "ChangesFollowed condition. Unset: no watcher, values live until their TTLs.")
  private ChangeStreamSpec changeStream;

  public TargetRef getTargetRef() {
    return targetRef;
  }

  public void setTargetRef(TargetRef targetRef) {
    this.targetRef = targetRef;
  }

  public String getCacheName() {
    return cacheName;
  }

  public void setCacheName(String cacheName) {
    this.cacheName = cacheName;
  }

  public String getKeySpaceVersion() {
    return keySpaceVersion;
  }

  public void setKeySpaceVersion(String keySpaceVersion) {
    this.keySpaceVersion = keySpaceVersion;
  }

  public Long getL1MaxSize() {
    return l1MaxSize;
  }

  public void setL1MaxSize(Long l1MaxSize) {
    this.l1MaxSize = l1MaxSize;
  }

  public String getL1Ttl() {
    return l1Ttl;
  }

  public void setL1Ttl(String l1Ttl) {
    this.l1Ttl = l1Ttl;
  }

  public String getL2Ttl() {
    return l2Ttl;
  }

  public void setL2Ttl(String l2Ttl) {
    this.l2Ttl = l2Ttl;
  }

  public String getNegativeTtl() {
    return negativeTtl;
  }

  public void setNegativeTtl(String negativeTtl) {
    this.negativeTtl = negativeTtl;
  }

  public String getRefreshAhead() {
    return refreshAhead;
  }

  public void setRefreshAhead(String refreshAhead) {
    this.refreshAhead = refreshAhead;
  }

  public String getLockTtl() {
    return lockTtl;
  }

  public void setLockTtl(String lockTtl) {
    this.lockTtl = lockTtl;
  }

  public String getL2Timeout() {
    return l2Timeout;
  }

  public void setL2Timeout(String l2Timeout) {
    this.l2Timeout = l2Timeout;
  }

  public String getMaxStaleness() {
    return maxStaleness;
  }

  public void setMaxStaleness(String maxStaleness) {
    this.maxStaleness = maxStaleness;
  }

  public String getStaleIfError() {
    return staleIfError;
  }

  public void setStaleIfError(String staleIfError) {
    this.staleIfError = staleIfError;
  }

  public ValkeySpec getValkey() {
    return valkey;
  }

  public void setValkey(ValkeySpec valkey) {
    this.valkey = valkey;
  }

  public WarmupSpec getWarmup() {
    return warmup;
  }

  public void setWarmup(WarmupSpec warmup) {
    this.warmup = warmup;
  }

  public InjectionSpec getInjection() {
    return injection;
  }

  public void setInjection(InjectionSpec injection) {
    this.injection = injection;
  }

  public ChangeStreamSpec getChangeStream() {
    return changeStream;
  }

  public void setChangeStream(ChangeStreamSpec changeStream) {
    this.changeStream = changeStream;
  }
}
