package io.warmgate.agent;

import io.warmgate.valkey.env.EnvValues;
import io.warmgate.valkey.env.ValkeyVariables;
import io.warmgate.agent.hot.HotKeys;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.contract.AgentVariables;
import io.warmgate.contract.ChangeStreamNames;
import io.warmgate.contract.KeySpaceVersions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's settings as read from {@code WARMGATE_*} variables, which the warmgate operator
 * injects into pods. Immutable; {@link #toString()} never shows the password.
 *
 * <p>The names are those of {@link AgentVariables}, which the operator injects. Durations follow
 * {@link io.warmgate.contract.Durations}, as the CachePolicy's fields do ({@code 500ms},
 * {@code 60s}, {@code 4m}, {@code 1h30m}, {@code 1.5s}, {@code 0}); sizes are byte counts with an
 * optional unit ({@code 524288}, {@code 512KiB}, {@code 512Ki}, {@code 1MB}). An unset or blank variable takes its default; a malformed one is refused with an
 * {@link IllegalArgumentException} naming the variable, its value and the expected form.
 */
public final class WarmGateConfig {

  /** Cache name, the {@code <cache>} of every L2 key. Required. */
  public static final String CACHE_NAME = AgentVariables.CACHE_NAME;
  /**
   * {@code host:port} of the Valkey/Redis server, or comma-separated seed nodes of a cluster (at
   * most {@value #MAX_CLUSTER_SEEDS}); unset = no L2.
   */
  public static final String VALKEY_ADDRESSES = ValkeyVariables.ADDRESSES;
  /** {@code standalone} (default: one server) or {@code cluster} (a Valkey cluster's seed nodes). */
  public static final String VALKEY_MODE = ValkeyVariables.MODE;
  /** ACL user name for Valkey, optional. */
  public static final String VALKEY_USERNAME = ValkeyVariables.USERNAME;
  /** Valkey password, optional. */
  public static final String VALKEY_PASSWORD = ValkeyVariables.PASSWORD;
  /** {@code true} to connect with TLS; default {@code false}. */
  public static final String VALKEY_TLS = ValkeyVariables.TLS;
  /**
   * Path of a PEM file with the CA certificates that signed the servers' certificates, trusted
   * instead of the JDK's trust store; needs {@value #VALKEY_TLS}=true. Read again for each new
   * connection, so a rotated CA in a mounted Secret is picked up.
   */
  public static final String VALKEY_TLS_CA_FILE = ValkeyVariables.TLS_CA_FILE;
  /**
   * The same CA certificates as PEM text (such as a Secret key injected with
   * {@code secretKeyRef}); an alternative to {@value #VALKEY_TLS_CA_FILE}, not both.
   */
  public static final String VALKEY_TLS_CA = ValkeyVariables.TLS_CA;
  /**
   * {@code full} (default): a server's certificate must be signed by a trusted CA and name the
   * host or IP address connected to; {@code ca}: signed by a trusted CA, any name (for clusters
   * whose nodes announce IP addresses their certificates do not list).
   */
  public static final String VALKEY_TLS_VERIFY = ValkeyVariables.TLS_VERIFY;
  /**
   * Where lookups read values: {@code primary} (default) or {@code replica-preferred} (cluster
   * only: a replica of the key's slot while one is up; see {@code docs/valkey-layout.md}).
   */
  public static final String VALKEY_READ_FROM = ValkeyVariables.READ_FROM;
  /** L1 time to live, default {@code 60s}. */
  public static final String L1_TTL = AgentVariables.L1_TTL;
  /** L1 maximum number of entries, default {@code 100000}. */
  public static final String L1_MAX_SIZE = AgentVariables.L1_MAX_SIZE;
  /** L2 time to live, default {@code 4m}. */
  public static final String L2_TTL = AgentVariables.L2_TTL;
  /** TTL of not-found entries in both tiers; unset = the tier's own TTL. */
  public static final String NEGATIVE_TTL = AgentVariables.NEGATIVE_TTL;
  /** Refresh an L2 entry in the background once this little TTL is left, default {@code 60s}. */
  public static final String REFRESH_AHEAD = AgentVariables.REFRESH_AHEAD;
  /**
   * Expiry of the cross-pod refresh lock and of the fill lease, default {@code 5s}: renewed while
   * its holder loads, so it is how soon other pods notice a holder that died.
   */
  public static final String LOCK_TTL = AgentVariables.LOCK_TTL;
  /**
   * The longest a lookup that missed L2 waits for another pod's origin read of the same id,
   * default: the origin's {@linkplain Origin#timeout timeout} ({@code SpannerOrigin}'s
   * {@code timeout}, 5 s unless set); {@code 0s} = no fill lease, no waiting.
   */
  public static final String FILL_WAIT = AgentVariables.FILL_WAIT;
  /** Budget of one L2 call before falling back to the origin, default {@code 20ms}. */
  public static final String L2_TIMEOUT = AgentVariables.L2_TIMEOUT;
  /** Nothing older than this since it left the origin is returned, default {@code 5m}. */
  public static final String MAX_STALENESS = AgentVariables.MAX_STALENESS;
  /** When the origin fails, a value younger than this may be served, default {@code 5m}. */
  public static final String STALE_IF_ERROR = AgentVariables.STALE_IF_ERROR;
  /** How long the origin is not called after its circuit breaker opened, default {@code 5s}. */
  public static final String ORIGIN_BREAKER_WAIT = AgentVariables.ORIGIN_BREAKER_WAIT;
  /** Encoded values larger than this are not written to L2, default {@code 512KiB}. */
  public static final String MAX_VALUE_BYTES = AgentVariables.MAX_VALUE_BYTES;
  /**
   * Longest id accepted, in UTF-8 bytes: 1 to {@value TieredCache#MAX_ID_BYTES_LIMIT}, default
   * {@value TieredCache#DEFAULT_MAX_ID_BYTES}.
   */
  public static final String MAX_ID_BYTES = AgentVariables.MAX_ID_BYTES;
  /**
   * One lookup in this many is sampled into the fleet's hot set: a power of two from 1 to
   * {@value #MAX_HOT_SAMPLE_PERIOD}, default {@value HotKeys#DEFAULT_SAMPLE_PERIOD}. A pod with
   * few lookups per second learns its hot set sooner with a smaller period.
   */
  public static final String HOT_SAMPLE_PERIOD = AgentVariables.HOT_SAMPLE_PERIOD;
  /**
   * A label that enters the schema hash, moving the cache to a new L2 key space when the meaning
   * of the values changes but their type does not; unset = the hash of the type alone. See
   * {@link KeySpaceVersion}.
   */
  public static final String KEY_SPACE_VERSION = AgentVariables.KEY_SPACE_VERSION;
  /**
   * The Spanner change stream whose row changes invalidate cached values (its watcher is started
   * by the application, which maps tables to ids); unset = no watcher. See
   * {@link ChangeStreamNames#RULE}.
   */
  public static final String CHANGE_STREAM = AgentVariables.CHANGE_STREAM;
  /**
   * How often an idle change stream partition reports progress, {@code 100ms} to {@code 5m},
   * default {@code 1s}.
   */
  public static final String CHANGE_STREAM_HEARTBEAT = AgentVariables.CHANGE_STREAM_HEARTBEAT;
  /** This pod's name (downward API), used in lock tokens and agent identity. */
  public static final String POD_NAME = AgentVariables.POD_NAME;
  /** This pod's namespace (downward API). */
  public static final String POD_NAMESPACE = AgentVariables.POD_NAMESPACE;
  /** This pod's {@code rollouts-pod-template-hash} label (downward API). */
  public static final String POD_TEMPLATE_HASH = AgentVariables.POD_TEMPLATE_HASH;

  /** Most seed nodes {@value #VALKEY_ADDRESSES} takes in cluster mode, as the CRD. */
  public static final int MAX_CLUSTER_SEEDS = ValkeyVariables.MAX_CLUSTER_SEEDS;

  static final Duration DEFAULT_L1_TTL = Duration.ofSeconds(60);
  static final long DEFAULT_L1_MAX_SIZE = 100_000;
  static final Duration DEFAULT_L2_TTL = Duration.ofMinutes(4);
  static final Duration DEFAULT_REFRESH_AHEAD = Duration.ofSeconds(60);
  static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(5);
  static final Duration DEFAULT_L2_TIMEOUT = Duration.ofMillis(20);
  static final Duration DEFAULT_MAX_STALENESS = Duration.ofMinutes(5);
  static final Duration DEFAULT_STALE_IF_ERROR = Duration.ofMinutes(5);
  static final long DEFAULT_MAX_VALUE_BYTES = 512 * 1024;
  static final Duration DEFAULT_ORIGIN_BREAKER_WAIT = Duration.ofSeconds(5);
  /** The largest {@value #HOT_SAMPLE_PERIOD}: past it a hot set learns too little to rank ids. */
  static final int MAX_HOT_SAMPLE_PERIOD = 1024;
  static final Duration DEFAULT_CHANGE_STREAM_HEARTBEAT = Duration.ofSeconds(1);
  /** The range of heartbeats Spanner's change stream queries accept. */
  static final Duration MIN_HEARTBEAT = Duration.ofMillis(100);
  static final Duration MAX_HEARTBEAT = Duration.ofMinutes(5);

  private final String cacheName;
  private final ValkeyVariables valkey;
  private final Duration l1Ttl;
  private final long l1MaxSize;
  private final Duration l2Ttl;
  private final Duration negativeTtl;
  private final Duration refreshAhead;
  private final Duration lockTtl;
  private final Duration fillWait;
  private final Duration l2Timeout;
  private final Duration maxStaleness;
  private final Duration staleIfError;
  private final long maxValueBytes;
  private final int maxIdBytes;
  private final int hotSamplePeriod;
  private final Duration originBreakerWait;
  private final String keySpaceVersion;
  private final String changeStream;
  private final Duration changeStreamHeartbeat;
  private final String podName;
  private final String podNamespace;
  private final String podTemplateHash;

  private WarmGateConfig(Map<String, String> env) {
    cacheName = required(env, CACHE_NAME);
    try {
      KeySpace.requireValidCacheName(cacheName);
    } catch (IllegalArgumentException e) {
      throw EnvValues.invalid(CACHE_NAME, cacheName, KeySpace.CACHE_NAME_RULE);
    }
    valkey = ValkeyVariables.from(env);
    l1Ttl = duration(env, L1_TTL, DEFAULT_L1_TTL);
    l1MaxSize = optional(env, L1_MAX_SIZE).map(v -> EnvValues.positiveLong(L1_MAX_SIZE, v))
        .orElse(DEFAULT_L1_MAX_SIZE);
    l2Ttl = duration(env, L2_TTL, DEFAULT_L2_TTL);
    negativeTtl = duration(env, NEGATIVE_TTL, null);
    refreshAhead = duration(env, REFRESH_AHEAD, DEFAULT_REFRESH_AHEAD);
    lockTtl = duration(env, LOCK_TTL, DEFAULT_LOCK_TTL);
    fillWait = duration(env, FILL_WAIT, null);
    l2Timeout = duration(env, L2_TIMEOUT, DEFAULT_L2_TIMEOUT);
    maxStaleness = duration(env, MAX_STALENESS, DEFAULT_MAX_STALENESS);
    staleIfError = duration(env, STALE_IF_ERROR, DEFAULT_STALE_IF_ERROR);
    maxValueBytes = optional(env, MAX_VALUE_BYTES).map(v -> EnvValues.bytes(MAX_VALUE_BYTES, v))
        .orElse(DEFAULT_MAX_VALUE_BYTES);
    maxIdBytes = optional(env, MAX_ID_BYTES).map(WarmGateConfig::parseMaxIdBytes)
        .orElse(TieredCache.DEFAULT_MAX_ID_BYTES);
    hotSamplePeriod = optional(env, HOT_SAMPLE_PERIOD).map(WarmGateConfig::parseHotSamplePeriod)
        .orElse(HotKeys.DEFAULT_SAMPLE_PERIOD);
    originBreakerWait = duration(env, ORIGIN_BREAKER_WAIT, DEFAULT_ORIGIN_BREAKER_WAIT);
    if (originBreakerWait.isZero()) {
      throw EnvValues.invalid(ORIGIN_BREAKER_WAIT, text(env, ORIGIN_BREAKER_WAIT),
          "a positive duration such as 500ms, 5s or 1m");
    }
    keySpaceVersion = text(env, KEY_SPACE_VERSION);
    if (keySpaceVersion != null && !KeySpaceVersions.isValid(keySpaceVersion)) {
      throw EnvValues.invalid(KEY_SPACE_VERSION, keySpaceVersion, KeySpaceVersions.RULE
          + " (or unset it to keep the type's own key space)");
    }
    changeStream = text(env, CHANGE_STREAM);
    if (changeStream != null && !ChangeStreamNames.isValid(changeStream)) {
      throw EnvValues.invalid(CHANGE_STREAM, changeStream, ChangeStreamNames.RULE
          + " (or unset it to run without a change stream watcher)");
    }
    changeStreamHeartbeat = duration(env, CHANGE_STREAM_HEARTBEAT, DEFAULT_CHANGE_STREAM_HEARTBEAT);
    if (changeStreamHeartbeat.compareTo(MIN_HEARTBEAT) < 0
        || changeStreamHeartbeat.compareTo(MAX_HEARTBEAT) > 0) {
      throw EnvValues.invalid(CHANGE_STREAM_HEARTBEAT, text(env, CHANGE_STREAM_HEARTBEAT),
          "a duration from 100ms to 5m (the range Spanner takes), such as 1s");
    }
    podName = text(env, POD_NAME);
    podNamespace = text(env, POD_NAMESPACE);
    podTemplateHash = text(env, POD_TEMPLATE_HASH);
  }

  /**
   * Reads the configuration from {@code env}, a stand-in for the process environment.
   *
   * @throws NullPointerException if {@code env} is null
   * @throws IllegalArgumentException naming the variable if one is missing or malformed
   */
  public static WarmGateConfig from(Map<String, String> env) {
    return new WarmGateConfig(Objects.requireNonNull(env, "env"));
  }

  /** Reads the configuration from the process environment; see {@link #from(Map)}. */
  public static WarmGateConfig fromEnvironment() {
    return from(System.getenv());
  }

  /** {@value #CACHE_NAME}. */
  public String cacheName() { return cacheName; }
  /** {@value #VALKEY_MODE}. */
  public ValkeyEndpoint.Mode valkeyMode() { return valkey.mode(); }
  /** {@value #VALKEY_ADDRESSES} as a list; empty when L2 is not configured. */
  public List<String> valkeyAddresses() { return valkey.addresses(); }
  /**
   * Where and how to reach Valkey, from every {@code WARMGATE_VALKEY_*} variable; empty when
   * {@value #VALKEY_ADDRESSES} is not set.
   */
  public Optional<ValkeyEndpoint> valkeyEndpoint() { return valkey.endpoint(); }
  /** {@value #VALKEY_READ_FROM}. */
  public ValkeyEndpoint.ReadFrom valkeyReadFrom() { return valkey.readFrom(); }
  /** {@value #VALKEY_USERNAME}, or empty. */
  public Optional<String> valkeyUsername() { return valkey.username(); }
  /** {@value #VALKEY_PASSWORD}, or empty. */
  public Optional<String> valkeyPassword() { return valkey.password(); }
  /** {@value #VALKEY_TLS}. */
  public boolean valkeyTls() { return valkey.tls(); }
  /** {@value #L1_TTL}. */
  public Duration l1Ttl() { return l1Ttl; }
  /** {@value #L1_MAX_SIZE}. */
  public long l1MaxSize() { return l1MaxSize; }
  /** {@value #L2_TTL}. */
  public Duration l2Ttl() { return l2Ttl; }
  /** {@value #NEGATIVE_TTL}, or empty when not-found entries use the tiers' own TTLs. */
  public Optional<Duration> negativeTtl() { return Optional.ofNullable(negativeTtl); }
  /** {@value #REFRESH_AHEAD}. */
  public Duration refreshAhead() { return refreshAhead; }
  /** {@value #LOCK_TTL}. */
  public Duration lockTtl() { return lockTtl; }
  /** {@value #FILL_WAIT}; zero = no fill lease; empty = the origin's timeout. */
  public Optional<Duration> fillWait() { return Optional.ofNullable(fillWait); }
  /** {@value #L2_TIMEOUT}. */
  public Duration l2Timeout() { return l2Timeout; }
  /** {@value #MAX_STALENESS}. */
  public Duration maxStaleness() { return maxStaleness; }
  /** {@value #STALE_IF_ERROR}. */
  public Duration staleIfError() { return staleIfError; }
  /** {@value #MAX_VALUE_BYTES}. */
  public long maxValueBytes() { return maxValueBytes; }
  /** {@value #MAX_ID_BYTES}. */
  public int maxIdBytes() { return maxIdBytes; }
  /** {@value #HOT_SAMPLE_PERIOD}. */
  public int hotSamplePeriod() { return hotSamplePeriod; }
  /** {@value #ORIGIN_BREAKER_WAIT}. */
  public Duration originBreakerWait() { return originBreakerWait; }
  /** {@value #KEY_SPACE_VERSION}, or empty. */
  public Optional<String> keySpaceVersion() { return Optional.ofNullable(keySpaceVersion); }
  /** {@value #CHANGE_STREAM}, or empty. */
  public Optional<String> changeStream() { return Optional.ofNullable(changeStream); }
  /** {@value #CHANGE_STREAM_HEARTBEAT}. */
  public Duration changeStreamHeartbeat() { return changeStreamHeartbeat; }
  /** {@value #POD_NAME}, or empty. */
  public Optional<String> podName() { return Optional.ofNullable(podName); }
  /** {@value #POD_NAMESPACE}, or empty. */
  public Optional<String> podNamespace() { return Optional.ofNullable(podNamespace); }
  /** {@value #POD_TEMPLATE_HASH}, or empty. */
  public Optional<String> podTemplateHash() { return Optional.ofNullable(podTemplateHash); }

  @Override
  public String toString() {
    return "WarmGateConfig{cacheName=" + cacheName + ", " + valkey
        + ", l1Ttl=" + l1Ttl + ", l1MaxSize=" + l1MaxSize
        + ", l2Ttl=" + l2Ttl + ", negativeTtl=" + negativeTtl + ", refreshAhead=" + refreshAhead
        + ", lockTtl=" + lockTtl + ", fillWait=" + fillWait + ", l2Timeout=" + l2Timeout
        + ", maxStaleness=" + maxStaleness
        + ", staleIfError=" + staleIfError + ", maxValueBytes=" + maxValueBytes
        + ", maxIdBytes=" + maxIdBytes + ", hotSamplePeriod=" + hotSamplePeriod
        + ", originBreakerWait=" + originBreakerWait + ", keySpaceVersion=" + keySpaceVersion
        + ", changeStream=" + changeStream + ", changeStreamHeartbeat=" + changeStreamHeartbeat
        + ", podName=" + podName + ", podNamespace=" + podNamespace
        + ", podTemplateHash=" + podTemplateHash + "}";
  }

  private static String text(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static Optional<String> optional(Map<String, String> env, String name) {
    return Optional.ofNullable(text(env, name));
  }

  private static String required(Map<String, String> env, String name) {
    String value = text(env, name);
    if (value == null) {
      throw new IllegalArgumentException(name + " is not set: set it to the cache name, "
          + "for example " + name + "=deals (the warmgate operator injects it from the CachePolicy)");
    }
    return value;
  }

  private static int parseMaxIdBytes(String value) {
    String expected = "a whole number of bytes from 1 to " + TieredCache.MAX_ID_BYTES_LIMIT
        + ", such as " + TieredCache.DEFAULT_MAX_ID_BYTES;
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 1 && n <= TieredCache.MAX_ID_BYTES_LIMIT) {
        return (int) n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw EnvValues.invalid(MAX_ID_BYTES, value, expected);
  }

  private static int parseHotSamplePeriod(String value) {
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 1 && n <= MAX_HOT_SAMPLE_PERIOD && Long.bitCount(n) == 1) {
        return (int) n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw EnvValues.invalid(HOT_SAMPLE_PERIOD, value, "a power of two from 1 (every lookup) to "
        + MAX_HOT_SAMPLE_PERIOD + ", such as " + HotKeys.DEFAULT_SAMPLE_PERIOD);
  }

  private static Duration duration(Map<String, String> env, String name, Duration fallback) {
    return optional(env, name).map(v -> EnvValues.duration(name, v)).orElse(fallback);
  }
}
