package io.warmgate.gateway.config;

import io.warmgate.valkey.env.EnvValues;
import io.warmgate.valkey.env.ValkeyVariables;
import io.warmgate.valkey.ValkeyEndpoint;
import io.warmgate.contract.Durations;
import io.warmgate.gateway.auth.TokenSource;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The gateway's settings as read from {@code WARMGATE_GATEWAY_*} variables (and the agent's
 * {@code WARMGATE_VALKEY_*}, parsed by {@link ValkeyVariables} as the agent does, and
 * {@code WARMGATE_POD_NAME}). Immutable; {@link #toString()} never
 * shows the Valkey password or upstream header values, which usually come from a Secret.
 *
 * <p>Durations follow warmgate's one grammar, {@link io.warmgate.contract.Durations} ({@code 500ms},
 * {@code 60s}, {@code 4m}, {@code 1.5s}). An unset or blank
 * variable takes its default; a malformed one is refused with an {@link IllegalArgumentException}
 * naming the variable, its value and the expected form.
 */
public final class GatewayConfig {

  /** HTTP port of the gateway, default {@code 8080}; {@code 0} picks a free port. */
  public static final String PORT = "WARMGATE_GATEWAY_PORT";
  /**
   * {@code host:port} of the Valkey/Redis server, or in cluster mode 1 to
   * {@value ValkeyVariables#MAX_CLUSTER_SEEDS} comma-separated seed nodes. Required.
   */
  public static final String VALKEY_ADDRESSES = ValkeyVariables.ADDRESSES;
  /** {@code standalone} (default: one server) or {@code cluster} (a Valkey cluster's seed nodes). */
  public static final String VALKEY_MODE = ValkeyVariables.MODE;
  /** ACL user name for Valkey, optional. */
  public static final String VALKEY_USERNAME = ValkeyVariables.USERNAME;
  /** Valkey password, optional. */
  public static final String VALKEY_PASSWORD = ValkeyVariables.PASSWORD;
  /** {@code true} to connect to Valkey with TLS; default {@code false}. */
  public static final String VALKEY_TLS = ValkeyVariables.TLS;
  /** Path of a PEM file with the CA that signed the servers' certificates; needs TLS. */
  public static final String VALKEY_TLS_CA_FILE = ValkeyVariables.TLS_CA_FILE;
  /** The same CA as PEM text, instead of {@value #VALKEY_TLS_CA_FILE}. */
  public static final String VALKEY_TLS_CA = ValkeyVariables.TLS_CA;
  /** {@code full} (default) or {@code ca}: check only the CA, not the name, of a certificate. */
  public static final String VALKEY_TLS_VERIFY = ValkeyVariables.TLS_VERIFY;
  /** The agent's replica reads; the gateway refuses any value but {@code primary}. */
  public static final String VALKEY_READ_FROM = ValkeyVariables.READ_FROM;
  /** Upstream SSE endpoint; {@code {template}} is replaced by the template id. Required. */
  public static final String UPSTREAM_URL = "WARMGATE_GATEWAY_UPSTREAM_URL";
  /** Prefix of upstream request headers: {@code ..._HEADER_AUTHORIZATION} sends {@code Authorization}. */
  public static final String UPSTREAM_HEADER_PREFIX = "WARMGATE_GATEWAY_UPSTREAM_HEADER_";
  /** Connect timeout to the upstream, default {@code 5s}. */
  public static final String UPSTREAM_CONNECT_TIMEOUT = "WARMGATE_GATEWAY_UPSTREAM_CONNECT_TIMEOUT";
  /** Longest silence of the upstream between two reads, default {@code 30s}. */
  public static final String UPSTREAM_IDLE_TIMEOUT = "WARMGATE_GATEWAY_UPSTREAM_IDLE_TIMEOUT";
  /** Longest whole upstream response, default {@code 5m}. */
  public static final String UPSTREAM_TIMEOUT = "WARMGATE_GATEWAY_UPSTREAM_TIMEOUT";
  /** How long a completed response stays readable, default {@code 200ms}. */
  public static final String RESULT_TTL = "WARMGATE_GATEWAY_RESULT_TTL";
  /** How long a completed response stays readable while the burst flag is up, default {@code 5s}. */
  public static final String BURST_RESULT_TTL = "WARMGATE_GATEWAY_BURST_RESULT_TTL";
  /** Lifetime of a burst flag raised over HTTP without an explicit {@code ttl}, default {@code 2m}. */
  public static final String BURST_FLAG_TTL = "WARMGATE_GATEWAY_BURST_FLAG_TTL";
  /** Most chunks one response may have, default {@code 10000}. */
  public static final String STREAM_CAP = "WARMGATE_GATEWAY_STREAM_CAP";
  /** Expiry of the upstream lock; the holder renews it every third of it. Default {@code 5s}. */
  public static final String LOCK_TTL = "WARMGATE_GATEWAY_LOCK_TTL";
  /** Directory of {@code <template>.schema.json} files validating completed responses, optional. */
  public static final String SCHEMA_DIR = "WARMGATE_GATEWAY_SCHEMA_DIR";
  /** This pod's name (downward API), used in lock tokens. */
  public static final String POD_NAME = "WARMGATE_POD_NAME";
  /**
   * {@code token} (default): clients present bearer tokens; {@code none}: every request is
   * admitted, for a gateway behind something that authenticates clients (a mesh's mTLS policy).
   */
  public static final String AUTH = "WARMGATE_GATEWAY_AUTH";
  /** Tokens admitted to streams, comma- or line-separated (e.g. a {@code secretKeyRef}). */
  public static final String STREAM_TOKENS = "WARMGATE_GATEWAY_STREAM_TOKENS";
  /** File of tokens admitted to streams, one a line (a mounted Secret, re-read when it changes). */
  public static final String STREAM_TOKENS_FILE = "WARMGATE_GATEWAY_STREAM_TOKENS_FILE";
  /** Tokens admitted to the burst flag, as {@value #STREAM_TOKENS}; without any, nobody may set it over HTTP. */
  public static final String BURST_TOKENS = "WARMGATE_GATEWAY_BURST_TOKENS";
  /** File of tokens admitted to the burst flag, as {@value #STREAM_TOKENS_FILE}. */
  public static final String BURST_TOKENS_FILE = "WARMGATE_GATEWAY_BURST_TOKENS_FILE";
  /** Longest {@code ?ttl=} a burst flag may be raised for over HTTP, default {@code 30m}. */
  public static final String BURST_FLAG_MAX_TTL = "WARMGATE_GATEWAY_BURST_FLAG_MAX_TTL";
  /**
   * Most distinct coalescing keys this process reads (one Valkey connection each) and produces
   * (one upstream call each) at once, default {@code 256}; a request for one more gets 429.
   */
  public static final String MAX_KEYS = "WARMGATE_GATEWAY_MAX_KEYS";
  /** How long a client may leave its full write queue unread before it is dropped, default {@code 10s}. */
  public static final String SLOW_CLIENT_TIMEOUT = "WARMGATE_GATEWAY_SLOW_CLIENT_TIMEOUT";
  /** A client connection with no traffic either way for this long is closed, default {@code 60s}. */
  public static final String CLIENT_IDLE_TIMEOUT = "WARMGATE_GATEWAY_CLIENT_IDLE_TIMEOUT";
  /**
   * Kernel send buffer of each client connection, default {@code 64KiB}; {@code 0} leaves it to
   * the kernel's autotuning (up to several MiB per connection).
   */
  public static final String CLIENT_SEND_BUFFER = "WARMGATE_GATEWAY_CLIENT_SEND_BUFFER";
  /** Largest upstream event (or line), default {@code 1MiB}; a larger one fails the call. */
  public static final String UPSTREAM_MAX_EVENT_BYTES = "WARMGATE_GATEWAY_UPSTREAM_MAX_EVENT_BYTES";

  static final int DEFAULT_PORT = 8080;
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
  static final Duration DEFAULT_UPSTREAM_TIMEOUT = Duration.ofMinutes(5);
  static final Duration DEFAULT_RESULT_TTL = Duration.ofMillis(200);
  static final Duration DEFAULT_BURST_RESULT_TTL = Duration.ofSeconds(5);
  static final Duration DEFAULT_BURST_FLAG_TTL = Duration.ofMinutes(2);
  static final int DEFAULT_STREAM_CAP = 10_000;
  static final Duration DEFAULT_LOCK_TTL = Duration.ofSeconds(5);
  static final Duration DEFAULT_BURST_FLAG_MAX_TTL = Duration.ofMinutes(30);
  static final int DEFAULT_MAX_KEYS = 256;
  static final Duration DEFAULT_SLOW_CLIENT_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_CLIENT_IDLE_TIMEOUT = Duration.ofSeconds(60);
  static final int DEFAULT_CLIENT_SEND_BUFFER = 64 * 1024;
  static final int DEFAULT_UPSTREAM_MAX_EVENT_BYTES = 1024 * 1024;

  private final int port;
  private final ValkeyVariables valkey;
  private final ValkeyEndpoint valkeyEndpoint;
  private final String upstreamUrl;
  private final Map<String, String> upstreamHeaders;
  private final Duration upstreamConnectTimeout;
  private final Duration upstreamIdleTimeout;
  private final Duration upstreamTimeout;
  private final Duration resultTtl;
  private final Duration burstResultTtl;
  private final Duration burstFlagTtl;
  private final int streamCap;
  private final Duration lockTtl;
  private final Path schemaDir;
  private final String podName;
  private final boolean authEnabled;
  private final TokenSource streamTokens;
  private final TokenSource burstTokens;
  private final Duration burstFlagMaxTtl;
  private final int maxKeys;
  private final Duration slowClientTimeout;
  private final Duration clientIdleTimeout;
  private final int clientSendBuffer;
  private final int upstreamMaxEventBytes;

  private GatewayConfig(Map<String, String> env) {
    port = optional(env, PORT).map(v -> port(PORT, v)).orElse(DEFAULT_PORT);
    String readFrom = text(env, VALKEY_READ_FROM);
    if (readFrom != null && !readFrom.equalsIgnoreCase(ValkeyEndpoint.ReadFrom.PRIMARY.configName())) {
      // Joins, takeovers and blocking reads must see the writes just made: only primaries do.
      throw EnvValues.invalid(VALKEY_READ_FROM, readFrom, "primary: the stream gateway reads "
          + "from primaries only; unset " + VALKEY_READ_FROM + " for the gateway");
    }
    valkey = ValkeyVariables.from(env);
    valkeyEndpoint = valkey.endpoint().orElseThrow(() -> new IllegalArgumentException(
        VALKEY_ADDRESSES + " is not set: set it to the Valkey address, for example valkey:6379, "
            + "or to a cluster's seed nodes with " + VALKEY_MODE + "=cluster"));
    upstreamUrl = required(env, UPSTREAM_URL,
        "the upstream SSE endpoint, for example http://llm:8000/v1/templates/{template}/stream");
    validateUrl(upstreamUrl);
    upstreamHeaders = headers(env);
    upstreamConnectTimeout = positive(env, UPSTREAM_CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT);
    upstreamIdleTimeout = positive(env, UPSTREAM_IDLE_TIMEOUT, DEFAULT_IDLE_TIMEOUT);
    upstreamTimeout = positive(env, UPSTREAM_TIMEOUT, DEFAULT_UPSTREAM_TIMEOUT);
    resultTtl = positive(env, RESULT_TTL, DEFAULT_RESULT_TTL);
    burstResultTtl = positive(env, BURST_RESULT_TTL, DEFAULT_BURST_RESULT_TTL);
    burstFlagTtl = positive(env, BURST_FLAG_TTL, DEFAULT_BURST_FLAG_TTL);
    streamCap = optional(env, STREAM_CAP)
        .map(v -> (int) Math.min(Integer.MAX_VALUE - 1, EnvValues.positiveLong(STREAM_CAP, v)))
        .orElse(DEFAULT_STREAM_CAP);
    lockTtl = positive(env, LOCK_TTL, DEFAULT_LOCK_TTL);
    if (lockTtl.toMillis() < 100) {
      throw EnvValues.invalid(LOCK_TTL, env.get(LOCK_TTL),
          "at least 100ms (the holder renews it every third of it)");
    }
    schemaDir = optional(env, SCHEMA_DIR).map(GatewayConfig::directory).orElse(null);
    podName = optional(env, POD_NAME).orElse("gateway-" + UUID.randomUUID().toString().substring(0, 8));
    authEnabled = auth(env);
    streamTokens = tokens(env, STREAM_TOKENS, STREAM_TOKENS_FILE);
    burstTokens = tokens(env, BURST_TOKENS, BURST_TOKENS_FILE);
    if (authEnabled && streamTokens == null) {
      throw new IllegalArgumentException(STREAM_TOKENS_FILE + " is not set: clients of the gateway "
          + "present a bearer token; mount a Secret of tokens (one a line) and name the file there, "
          + "or give them in " + STREAM_TOKENS + ", or set " + AUTH + "=none if something in front "
          + "of the gateway authenticates its clients");
    }
    if (!authEnabled && (streamTokens != null || burstTokens != null)) {
      throw new IllegalArgumentException(AUTH + "=none admits every client, but "
          + (streamTokens != null ? streamTokens.variable() : burstTokens.variable())
          + " is set: unset the tokens, or " + AUTH + " to require them");
    }
    burstFlagMaxTtl = positive(env, BURST_FLAG_MAX_TTL, DEFAULT_BURST_FLAG_MAX_TTL);
    if (burstFlagTtl.compareTo(burstFlagMaxTtl) > 0) {
      throw EnvValues.invalid(BURST_FLAG_TTL, env.get(BURST_FLAG_TTL), "at most " + BURST_FLAG_MAX_TTL
          + " (" + Durations.format(burstFlagMaxTtl) + "); shorten it or raise the cap");
    }
    maxKeys = optional(env, MAX_KEYS)
        .map(v -> (int) Math.min(100_000, EnvValues.positiveLong(MAX_KEYS, v)))
        .orElse(DEFAULT_MAX_KEYS);
    slowClientTimeout = positive(env, SLOW_CLIENT_TIMEOUT, DEFAULT_SLOW_CLIENT_TIMEOUT);
    clientIdleTimeout = positive(env, CLIENT_IDLE_TIMEOUT, DEFAULT_CLIENT_IDLE_TIMEOUT);
    if (clientIdleTimeout.toMillis() < 1000) {
      throw EnvValues.invalid(CLIENT_IDLE_TIMEOUT, env.get(CLIENT_IDLE_TIMEOUT),
          "at least 1s (streams send a keep-alive comment every third of it)");
    }
    clientSendBuffer = optional(env, CLIENT_SEND_BUFFER)
        .map(v -> byteSize(CLIENT_SEND_BUFFER, v, 0)).orElse(DEFAULT_CLIENT_SEND_BUFFER);
    upstreamMaxEventBytes = optional(env, UPSTREAM_MAX_EVENT_BYTES)
        .map(v -> byteSize(UPSTREAM_MAX_EVENT_BYTES, v, 1)).orElse(DEFAULT_UPSTREAM_MAX_EVENT_BYTES);
  }

  private static boolean auth(Map<String, String> env) {
    String value = text(env, AUTH);
    if (value == null || value.equalsIgnoreCase("token")) {
      return true;
    }
    if (value.equalsIgnoreCase("none")) {
      return false;
    }
    throw EnvValues.invalid(AUTH, value, "token (clients present bearer tokens) or none (something "
        + "in front of the gateway authenticates them)");
  }

  /** The tokens of one role from its variable or its file (checked now), or null if neither is set. */
  private static TokenSource tokens(Map<String, String> env, String inlineVariable, String fileVariable) {
    String inline = text(env, inlineVariable);
    String file = text(env, fileVariable);
    if (inline != null && file != null) {
      throw new IllegalArgumentException(fileVariable + " and " + inlineVariable
          + " are both set: set only one");
    }
    TokenSource source = inline != null ? TokenSource.inline(inlineVariable, inline)
        : file != null ? TokenSource.file(fileVariable, Path.of(file)) : null;
    if (source != null) {
      source.read();
    }
    return source;
  }

  private static int byteSize(String variable, String value, long min) {
    long bytes = EnvValues.bytes(variable, value);
    if (bytes < min || bytes > Integer.MAX_VALUE / 2) {
      throw EnvValues.invalid(variable, value, "a byte size from " + min + " to 1GiB, such as 64KiB");
    }
    return (int) bytes;
  }

  /**
   * Reads the configuration from {@code env}, a stand-in for the process environment.
   *
   * @throws NullPointerException if {@code env} is null
   * @throws IllegalArgumentException naming the variable if one is missing or malformed
   */
  public static GatewayConfig from(Map<String, String> env) {
    return new GatewayConfig(Objects.requireNonNull(env, "env"));
  }

  /** Reads the configuration from the process environment; see {@link #from(Map)}. */
  public static GatewayConfig fromEnvironment() {
    return from(System.getenv());
  }

  /** {@value #PORT}. */
  public int port() { return port; }
  /**
   * Where and how to reach Valkey: the server or the cluster's seeds, with TLS, CA and
   * credentials, from every {@code WARMGATE_VALKEY_*} variable.
   */
  public ValkeyEndpoint valkeyEndpoint() { return valkeyEndpoint; }
  /** {@value #UPSTREAM_URL}, possibly containing {@code {template}}. */
  public String upstreamUrl() { return upstreamUrl; }
  /** Headers named by {@value #UPSTREAM_HEADER_PREFIX}{@code *} variables, name → value, sorted. */
  public Map<String, String> upstreamHeaders() { return upstreamHeaders; }
  /** {@value #UPSTREAM_CONNECT_TIMEOUT}. */
  public Duration upstreamConnectTimeout() { return upstreamConnectTimeout; }
  /** {@value #UPSTREAM_IDLE_TIMEOUT}. */
  public Duration upstreamIdleTimeout() { return upstreamIdleTimeout; }
  /** {@value #UPSTREAM_TIMEOUT}. */
  public Duration upstreamTimeout() { return upstreamTimeout; }
  /** {@value #RESULT_TTL}. */
  public Duration resultTtl() { return resultTtl; }
  /** {@value #BURST_RESULT_TTL}. */
  public Duration burstResultTtl() { return burstResultTtl; }
  /** {@value #BURST_FLAG_TTL}. */
  public Duration burstFlagTtl() { return burstFlagTtl; }
  /** {@value #STREAM_CAP}. */
  public int streamCap() { return streamCap; }
  /** {@value #LOCK_TTL}. */
  public Duration lockTtl() { return lockTtl; }
  /** {@value #SCHEMA_DIR}, or empty when no response is validated. */
  public Optional<Path> schemaDir() { return Optional.ofNullable(schemaDir); }
  /** {@value #POD_NAME}, or a random {@code gateway-xxxxxxxx}. */
  public String podName() { return podName; }
  /** False when {@value #AUTH} is {@code none}. */
  public boolean authEnabled() { return authEnabled; }
  /** {@value #STREAM_TOKENS} or {@value #STREAM_TOKENS_FILE}; present whenever authentication is on. */
  public Optional<TokenSource> streamTokens() { return Optional.ofNullable(streamTokens); }
  /** {@value #BURST_TOKENS} or {@value #BURST_TOKENS_FILE}, if set. */
  public Optional<TokenSource> burstTokens() { return Optional.ofNullable(burstTokens); }
  /** {@value #BURST_FLAG_MAX_TTL}. */
  public Duration burstFlagMaxTtl() { return burstFlagMaxTtl; }
  /** {@value #MAX_KEYS}. */
  public int maxKeys() { return maxKeys; }
  /** {@value #SLOW_CLIENT_TIMEOUT}. */
  public Duration slowClientTimeout() { return slowClientTimeout; }
  /** {@value #CLIENT_IDLE_TIMEOUT}. */
  public Duration clientIdleTimeout() { return clientIdleTimeout; }
  /** {@value #CLIENT_SEND_BUFFER} in bytes; 0 leaves it to the kernel. */
  public int clientSendBuffer() { return clientSendBuffer; }
  /** {@value #UPSTREAM_MAX_EVENT_BYTES}. */
  public int upstreamMaxEventBytes() { return upstreamMaxEventBytes; }

  /**
   * Parses a duration the way every {@code WARMGATE_*} variable is parsed
   * ({@link io.warmgate.contract.Durations}: {@code 500ms}, {@code 60s}, {@code 4m}, {@code 1.5s}).
   *
   * @param name what the value is, for the error message
   * @throws IllegalArgumentException naming {@code name}, the value and the expected form
   */
  public static Duration parseDuration(String name, String value) {
    return EnvValues.duration(name, value);
  }

  @Override
  public String toString() {
    return "GatewayConfig{port=" + port + ", valkey=" + valkeyEndpoint
        + ", valkeyUsername=" + valkey.username().orElse(null)
        + ", valkeyPassword=" + (valkey.password().isEmpty() ? "<unset>" : "<redacted>")
        + ", upstreamUrl=" + upstreamUrl
        + ", upstreamHeaders=" + upstreamHeaders.keySet() + " (values redacted)"
        + ", upstreamConnectTimeout=" + upstreamConnectTimeout
        + ", upstreamIdleTimeout=" + upstreamIdleTimeout + ", upstreamTimeout=" + upstreamTimeout
        + ", resultTtl=" + resultTtl + ", burstResultTtl=" + burstResultTtl
        + ", burstFlagTtl=" + burstFlagTtl + ", streamCap=" + streamCap + ", lockTtl=" + lockTtl
        + ", schemaDir=" + schemaDir + ", podName=" + podName
        + ", auth=" + (authEnabled ? "token (streams " + streamTokens + ", burst flag "
            + (burstTokens == null ? "none" : burstTokens) + ")" : "none")
        + ", burstFlagMaxTtl=" + burstFlagMaxTtl + ", maxKeys=" + maxKeys
        + ", slowClientTimeout=" + slowClientTimeout + ", clientIdleTimeout=" + clientIdleTimeout
        + ", clientSendBuffer=" + clientSendBuffer + ", upstreamMaxEventBytes=" + upstreamMaxEventBytes
        + "}";
  }

  private static Map<String, String> headers(Map<String, String> env) {
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (Map.Entry<String, String> e : env.entrySet()) {
      String variable = e.getKey();
      if (!variable.startsWith(UPSTREAM_HEADER_PREFIX) || e.getValue() == null || e.getValue().isBlank()) {
        continue;
      }
      String raw = variable.substring(UPSTREAM_HEADER_PREFIX.length());
      if (!raw.matches("[A-Za-z0-9_]+")) {
        throw new IllegalArgumentException(variable + " does not name a header: use "
            + UPSTREAM_HEADER_PREFIX + "<NAME> with letters, digits and _ (which becomes -), "
            + "for example " + UPSTREAM_HEADER_PREFIX + "AUTHORIZATION");
      }
      // HTTP header names are case-insensitive; X_API_KEY is sent as X-Api-Key for readability.
      StringBuilder name = new StringBuilder();
      for (String part : raw.split("_")) {
        if (!part.isEmpty()) {
          if (name.length() > 0) {
            name.append('-');
          }
          name.append(part.substring(0, 1).toUpperCase(Locale.ROOT))
              .append(part.substring(1).toLowerCase(Locale.ROOT));
        }
      }
      if (e.getValue().contains("\n") || e.getValue().contains("\r")) {
        throw new IllegalArgumentException(variable + " contains a line break: header values must "
            + "be one line; check the Secret the value comes from");
      }
      headers.put(name.toString(), e.getValue().trim());
    }
    return java.util.Collections.unmodifiableMap(headers);
  }

  private static void validateUrl(String url) {
    String probe = url.replace("{template}", "t");
    try {
      URI uri = new URI(probe);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return;
      }
    } catch (java.net.URISyntaxException e) {
      // reported below with the expected form
    }
    throw EnvValues.invalid(UPSTREAM_URL, url,
        "an absolute http(s) URL, optionally with {template}, for example "
            + "http://llm:8000/v1/templates/{template}/stream");
  }

  private static Path directory(String value) {
    Path path = Path.of(value);
    if (!Files.isDirectory(path)) {
      throw EnvValues.invalid(SCHEMA_DIR, value,
          "an existing directory holding <template>.schema.json files (mount a ConfigMap there)");
    }
    return path;
  }

  private static int port(String variable, String value) {
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed >= 0 && parsed <= 65535) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below with the expected form
    }
    throw EnvValues.invalid(variable, value, "a port number from 0 to 65535");
  }

  private static Duration positive(Map<String, String> env, String name, Duration fallback) {
    Optional<String> value = optional(env, name);
    if (value.isEmpty()) {
      return fallback;
    }
    Duration parsed = EnvValues.duration(name, value.get());
    if (parsed.toMillis() < 1) {
      throw EnvValues.invalid(name, value.get(), "a duration of at least 1ms, such as 500ms or 5s");
    }
    return parsed;
  }

  private static String text(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static Optional<String> optional(Map<String, String> env, String name) {
    return Optional.ofNullable(text(env, name));
  }

  private static String required(Map<String, String> env, String name, String what) {
    String value = text(env, name);
    if (value == null) {
      throw new IllegalArgumentException(name + " is not set: set it to " + what);
    }
    return value;
  }
}
