package io.warmgate.contract;

/**
 * Names of the {@code WARMGATE_*} environment variables that configure a cache agent: the
 * operator's webhook injects them, the agent's {@code WarmGateConfig} reads them. What each means,
 * its default and its form is documented where it is read ({@code WarmGateConfig}).
 */
public final class AgentVariables {

  public static final String CACHE_NAME = "WARMGATE_CACHE_NAME";
  public static final String KEY_SPACE_VERSION = "WARMGATE_KEY_SPACE_VERSION";

  public static final String VALKEY_ADDRESSES = "WARMGATE_VALKEY_ADDRESSES";
  public static final String VALKEY_MODE = "WARMGATE_VALKEY_MODE";
  public static final String VALKEY_USERNAME = "WARMGATE_VALKEY_USERNAME";
  public static final String VALKEY_PASSWORD = "WARMGATE_VALKEY_PASSWORD";
  public static final String VALKEY_TLS = "WARMGATE_VALKEY_TLS";
  public static final String VALKEY_TLS_CA_FILE = "WARMGATE_VALKEY_TLS_CA_FILE";
  public static final String VALKEY_TLS_CA = "WARMGATE_VALKEY_TLS_CA";
  public static final String VALKEY_TLS_VERIFY = "WARMGATE_VALKEY_TLS_VERIFY";
  public static final String VALKEY_READ_FROM = "WARMGATE_VALKEY_READ_FROM";

  public static final String L1_TTL = "WARMGATE_L1_TTL";
  public static final String L1_MAX_SIZE = "WARMGATE_L1_MAX_SIZE";
  public static final String L2_TTL = "WARMGATE_L2_TTL";
  public static final String NEGATIVE_TTL = "WARMGATE_NEGATIVE_TTL";
  public static final String REFRESH_AHEAD = "WARMGATE_REFRESH_AHEAD";
  public static final String LOCK_TTL = "WARMGATE_LOCK_TTL";
  public static final String FILL_WAIT = "WARMGATE_FILL_WAIT";
  public static final String L2_TIMEOUT = "WARMGATE_L2_TIMEOUT";
  public static final String MAX_STALENESS = "WARMGATE_MAX_STALENESS";
  public static final String STALE_IF_ERROR = "WARMGATE_STALE_IF_ERROR";
  public static final String ORIGIN_BREAKER_WAIT = "WARMGATE_ORIGIN_BREAKER_WAIT";
  public static final String MAX_VALUE_BYTES = "WARMGATE_MAX_VALUE_BYTES";
  public static final String MAX_ID_BYTES = "WARMGATE_MAX_ID_BYTES";
  public static final String HOT_SAMPLE_PERIOD = "WARMGATE_HOT_SAMPLE_PERIOD";

  public static final String CHANGE_STREAM = "WARMGATE_CHANGE_STREAM";
  public static final String CHANGE_STREAM_HEARTBEAT = "WARMGATE_CHANGE_STREAM_HEARTBEAT";

  public static final String POD_NAME = "WARMGATE_POD_NAME";
  public static final String POD_NAMESPACE = "WARMGATE_POD_NAMESPACE";
  public static final String POD_TEMPLATE_HASH = "WARMGATE_POD_TEMPLATE_HASH";

  private AgentVariables() {}
}
