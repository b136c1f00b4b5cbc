package io.warmgate.bench.release;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.bench.operator.ArgoRolloutPart;
import io.warmgate.bench.operator.BenchCluster;
import io.warmgate.bench.operator.BenchPolicies;
import io.warmgate.example.deal.DealSeeder;
import io.warmgate.operator.OperatorSettings;
import io.warmgate.operator.WarmgateOperator;
import io.warmgate.testing.RedisServer;
import io.warmgate.testing.SpannerEmulator;
import java.util.List;
import java.util.Map;

/**
 * The components a release runs on: one Redis (the shared L2), the origin (a Spanner emulator
 * seeded with deals, or the capacity-modelled stand-in {@link ModelledDeals}), a kube-apiserver
 * with the CachePolicy and Rollout CRDs, and the warmgate operator in this JVM (the benchmark plays
 * the Argo Rollouts controller's status writes, as the gate benchmark does). Pods are
 * {@link ReleasePod}s in this JVM.
 */
final class ReleaseEnv implements AutoCloseable {

  static final String CACHE_NAME = "deals";
  static final String NAMESPACE = "release-bench";
  static final String OLD_POD_HASH = ArgoRolloutPart.STABLE_POD_HASH;
  static final String NEW_POD_HASH = ArgoRolloutPart.CANARY_POD_HASH;

  private final ReleaseParams params;
  private final RedisServer redis = RedisServer.create();
  private final SpannerEmulator emulator;
  private final ModelledDeals modelled;
  private final OriginLog origins = new OriginLog();
  private BenchCluster cluster;
  private WarmgateOperator operator;
  private RedisClient client;
  private StatefulRedisConnection<String, String> valkey;

  private ReleaseEnv(ReleaseParams params) {
    this.params = params;
    boolean emulated = params.origin() == ReleaseParams.Origin.EMULATOR;
    this.emulator = emulated ? SpannerEmulator.create() : null;
    this.modelled = emulated ? null : new ModelledDeals();
  }

  static ReleaseEnv start(ReleaseParams params) {
    ReleaseEnv env = new ReleaseEnv(params);
    try {
      env.redis.start();
      if (env.emulator != null) {
        env.emulator.start();
        DealSeeder.seed(env.emulator.databaseClient(), params.deals());
      }
      env.cluster = new BenchCluster(env.redis).start();
      env.cluster.createNamespace(NAMESPACE);
      env.operator = WarmgateOperator.start(OperatorSettings.fromEnvironment(Map.of(
          "WARMGATE_LEADER_ELECTION", "false",
          "WARMGATE_HTTP_PORT", "0",
          "WARMGATE_VALKEY_ALLOWED_ADDRESSES", "127.0.0.1",
          "WARMGATE_NAMESPACES", NAMESPACE)), env.cluster.client());
      env.client = RedisClient.create(env.redis.uri());
      env.valkey = env.client.connect();
      return env;
    } catch (RuntimeException e) {
      env.close();
      throw e;
    }
  }

  ReleaseParams params() {
    return params;
  }

  String redisUri() {
    return redis.uri();
  }

  /** The emulator's host, or null when the origin is modelled. */
  String emulatorHost() {
    return emulator == null ? null : emulator.emulatorHost();
  }

  /** The modelled origin the pods share, or null when they read the emulator. */
  ModelledDeals modelled() {
    return modelled;
  }

  /** Commands on the benchmark's own Valkey connection (thread-safe, as Lettuce's are). */
  RedisCommands<String, String> valkey() {
    return valkey.sync();
  }

  OriginLog origins() {
    return origins;
  }

  ArgoRolloutPart argo() {
    return new ArgoRolloutPart(cluster.client());
  }

  BenchPolicies policies() {
    return new BenchPolicies(cluster.client(), cluster.valkeyAddress());
  }

  /**
   * Removes everything a release leaves in Valkey (value, lock and lease keys of every namespace,
   * warm jobs, stats, written-key counts, the registry) but the hot set, which the old fleet
   * keeps feeding: each release starts from empty key spaces and the learned hot set.
   */
  void resetKeys() {
    RedisCommands<String, String> redis = valkey.sync();
    for (String pattern : List.of("wg:" + CACHE_NAME + ":*", "{wg:" + CACHE_NAME + "}:warm*",
        "{wg:" + CACHE_NAME + "}:stats*", "{wg:" + CACHE_NAME + "}:keys*",
        "{wg:" + CACHE_NAME + "}:agents")) {
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
        if (!page.getKeys().isEmpty()) {
          redis.unlink(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
    origins.clear();
  }

  /** The ids of the warm job of namespace {@code schemaHash}, empty when none was opened. */
  List<String> warmJobIds(String schemaHash) {
    return valkey.sync().lrange(new KeySpace(CACHE_NAME, schemaHash).warmIdsKey(), 0, -1);
  }

  @Override
  public void close() {
    if (valkey != null) {
      valkey.close();
      client.shutdown();
    }
    try {
      if (operator != null) {
        operator.close();
      }
    } catch (Exception e) {
      throw new IllegalStateException("the operator did not stop", e);
    } finally {
      try {
        if (cluster != null) {
          cluster.close();
        }
      } finally {
        if (emulator != null) {
          emulator.close();
        }
        redis.close();
      }
    }
  }
}
