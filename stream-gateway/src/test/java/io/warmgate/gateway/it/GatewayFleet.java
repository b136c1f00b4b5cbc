package io.warmgate.gateway.it;

import io.warmgate.gateway.StreamGateway;
import io.warmgate.gateway.config.GatewayConfig;
import io.warmgate.gateway.http.PerUserHook;
import io.warmgate.gateway.validate.ResponseValidator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Several gateway instances in one JVM, each with its own Vert.x, Valkey client, threads and
 * port, like pods of one Deployment; {@link #kill(int)} stops one like a crashed pod.
 */
public final class GatewayFleet implements AutoCloseable {

  /** The bearer token {@link #env} admits to streams; {@link SseClient} sends it. */
  public static final String STREAM_TOKEN = "stream-token-0123456789abcdef";
  /** The bearer token {@link #env} admits to the burst flag. */
  public static final String BURST_TOKEN = "burst-token-0123456789abcdef";

  private final List<StreamGateway> gateways = new ArrayList<>();

  /** The environment of one gateway against the server at {@code redisAddress} and {@code upstream}. */
  public static Map<String, String> env(String redisAddress, TestUpstream upstream) {
    return env(Map.of(GatewayConfig.VALKEY_ADDRESSES, redisAddress), upstream);
  }

  /** The environment of one gateway against {@code valkey} ({@code WARMGATE_VALKEY_*}) and {@code upstream}. */
  public static Map<String, String> env(Map<String, String> valkey, TestUpstream upstream) {
    Map<String, String> env = new HashMap<>(valkey);
    env.put(GatewayConfig.PORT, "0");
    env.put(GatewayConfig.UPSTREAM_URL, upstream.urlTemplate());
    env.put(GatewayConfig.UPSTREAM_HEADER_PREFIX + "AUTHORIZATION", "Bearer test-token");
    env.put(GatewayConfig.STREAM_TOKENS, STREAM_TOKEN);
    env.put(GatewayConfig.BURST_TOKENS, BURST_TOKEN);
    return env;
  }

  /** Starts {@code count} gateways with {@code env}, named pod-0, pod-1, ... */
  public static GatewayFleet start(int count, Map<String, String> env) {
    return start(count, env, PerUserHook.IDENTITY, null);
  }

  /** Starts {@code count} gateways with a per-user hook and, if not null, a validator. */
  public static GatewayFleet start(int count, Map<String, String> env, PerUserHook hook,
      ResponseValidator validator) {
    GatewayFleet fleet = new GatewayFleet();
    try {
      for (int i = 0; i < count; i++) {
        Map<String, String> own = new HashMap<>(env);
        own.put(GatewayConfig.POD_NAME, "pod-" + i);
        StreamGateway.Builder builder = StreamGateway.builder(GatewayConfig.from(own)).perUserHook(hook);
        if (validator != null) {
          builder.validator(validator);
        }
        fleet.gateways.add(builder.start());
      }
    } catch (RuntimeException e) {
      fleet.close();
      throw e;
    }
    return fleet;
  }

  /** Gateway {@code i}. */
  public StreamGateway get(int i) {
    return gateways.get(i);
  }

  /** Port of gateway {@code i}. */
  public int port(int i) {
    return gateways.get(i).port();
  }

  /** Number of gateways. */
  public int size() {
    return gateways.size();
  }

  /** Stops gateway {@code i} abruptly. */
  public void kill(int i) {
    gateways.get(i).kill();
  }

  /** Sum of a counter over the fleet. */
  public long sum(java.util.function.ToLongFunction<StreamGateway> counter) {
    return gateways.stream().mapToLong(counter).sum();
  }

  @Override
  public void close() {
    gateways.forEach(g -> {
      try {
        g.kill();
      } catch (RuntimeException e) {
        // already stopped by a test
      }
    });
  }
}
