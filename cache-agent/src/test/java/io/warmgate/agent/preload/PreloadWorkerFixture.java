package io.warmgate.agent.preload;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.CountingOrigin;
import io.warmgate.agent.Origin;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.WarmableCaches;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.valkey.ValkeyConnection;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the preload worker's ITs share: the L2 of one mode, agents (a cache and its worker over a
 * recording origin) and the warm job's keys.
 */
abstract class PreloadWorkerFixture {

  /** The caches' default L2 TTL. */
  static final Duration L2_TTL = Duration.ofMinutes(4);

  final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
  final List<AutoCloseable> opened = new ArrayList<>();
  @RegisterExtension
  final L2Extension valkey;
  ValkeyConnection<String> connection;
  RedisClusterCommands<String, String> raw;
  KeySpace keys;

  PreloadWorkerFixture(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @BeforeEach
  void connect() {
    connection = valkey.connection();
    raw = valkey.strings();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    scheduler.shutdownNow();
  }

  /** An origin that knows {@code deal-0} .. {@code deal-999} and records when each batch came. */
  static final class RecordingOrigin implements Origin<String> {
    final CountingOrigin data = new CountingOrigin();
    final List<long[]> calls = new CopyOnWriteArrayList<>(); // {nanoTime, ids}

    RecordingOrigin() {
      for (int i = 0; i < 1_000; i++) {
        data.put("deal-" + i, "value of deal-" + i);
      }
    }

    @Override
    public Map<String, String> loadAll(Collection<String> ids) throws Exception {
      calls.add(new long[] {System.nanoTime(), ids.size()});
      return data.loadAll(ids);
    }

    List<String> loadedIds() {
      return data.batches().stream().flatMap(List::stream).toList();
    }
  }

  record Agent(String pod, TieredCache<String> cache, RecordingOrigin origin,
      PreloadWorker worker) {}

  Agent agent(String pod) {
    return agent(pod, new SimpleMeterRegistry(), UnaryOperator.identity());
  }

  /** An agent whose worker backs off 20 ms, doubling up to 200 ms, after a failed batch. */
  Agent agent(String pod, SimpleMeterRegistry meters,
      UnaryOperator<WarmGate<String>> settings) {
    return agent(pod, meters, settings, L2_TTL);
  }

  Agent agent(String pod, SimpleMeterRegistry meters,
      UnaryOperator<WarmGate<String>> settings, Duration l2Ttl) {
    RecordingOrigin origin = new RecordingOrigin();
    TieredCache<String> cache = settings.apply(WarmGate.newBuilder(String.class, origin)
        .cacheName("deals").valkey(valkey.endpoint()).podName(pod).meterRegistry(meters)
        .l2Timeout(Duration.ofMillis(500)).l2Ttl(l2Ttl)
        .refreshAhead(l2Ttl.dividedBy(4))).build();
    keys = new KeySpace("deals", cache.schemaHash());
    PreloadWorker worker = new PreloadWorker(connection, WarmableCaches.of(cache), pod, InstantSource.system(),
        scheduler, Duration.ofMillis(50), l2Ttl, Duration.ofMillis(20), Duration.ofMillis(200));
    opened.add(cache);
    opened.add(worker);
    return new Agent(pod, cache, origin, worker);
  }

  static List<String> ids(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "deal-" + i).toList();
  }

  void openJob(List<String> ids, Map<String, String> fields) {
    raw.rpush(keys.warmIdsKey(), ids.toArray(String[]::new));
    Map<String, String> job = new HashMap<>(Map.of("state", "Open", "filled", "0", "errors", "0",
        "cursor", "0", "createdAt", Long.toString(System.currentTimeMillis())));
    job.putAll(fields);
    raw.hset(keys.warmJobKey(), job);
  }

  Map<String, String> job() {
    return raw.hgetall(keys.warmJobKey());
  }

  void awaitState(String state) {
    await().atMost(Duration.ofSeconds(20)).until(() -> state.equals(job().get("state")));
  }

  Set<String> idsInNamespace() {
    String prefix = keys.valuePrefix();
    return raw.keys(prefix + "*").stream().map(k -> k.substring(prefix.length()))
        .collect(Collectors.toSet());
  }
}
