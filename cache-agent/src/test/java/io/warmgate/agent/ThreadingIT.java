package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which threads complete lookups and decode L2 replies, on a real redis-server and a real Redis
 * cluster: never Lettuce's I/O threads. Each test fills L2 with one pod and reads it with another,
 * whose L1 is empty, so every lookup is an L2 hit.
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class ThreadingIT {

  @RegisterExtension
  final L2Extension valkey;

  private final List<TieredCache<?>> opened = new ArrayList<>();
  private final ExecutorService mine = Executors.newFixedThreadPool(2, r -> {
    Thread t = new Thread(r, "mine-completion");
    t.setDaemon(true);
    return t;
  });

  ThreadingIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @AfterEach
  void close() {
    opened.forEach(TieredCache::close);
    mine.shutdownNow();
  }

  /** A value whose decoding records the thread it ran on. */
  @JsonDeserialize(using = Stamp.Decoder.class)
  record Stamp(String value) {
    static final Set<String> decodedOn = ConcurrentHashMap.newKeySet();

    static final class Decoder extends JsonDeserializer<Stamp> {
      @Override
      public Stamp deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
        decodedOn.add(Thread.currentThread().getName());
        String value = null;
        while (p.nextToken() != JsonToken.END_OBJECT) {
          if ("value".equals(p.currentName())) {
            p.nextToken();
            value = p.getText();
          }
        }
        return new Stamp(value);
      }
    }
  }

  private static final class Stamps implements Origin<Stamp> {
    @Override
    public Map<String, Stamp> loadAll(Collection<String> ids) {
      Map<String, Stamp> out = new HashMap<>();
      ids.forEach(id -> out.put(id, new Stamp("v-" + id)));
      return out;
    }
  }

  private record Pod(TieredCache<Stamp> cache, SimpleMeterRegistry meters) {
    long count(String name, String... tags) {
      return Meters.count(meters, name, tags);
    }
  }

  private Pod pod(ExecutorService completions) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    WarmGate<Stamp> builder = WarmGate.newBuilder(Stamp.class, new Stamps()).cacheName("deals")
        .valkey(valkey.endpoint()).meterRegistry(meters)
        // Long enough that no reply misses it on a loaded machine, so any timeout is a blocked
        // I/O thread.
        .l2Timeout(Duration.ofSeconds(2)).refreshAhead(Duration.ZERO);
    if (completions != null) {
      builder.completionExecutor(completions);
    }
    TieredCache<Stamp> cache = builder.build();
    opened.add(cache);
    return new Pod(cache, meters);
  }

  /** Writes each id to L2 through another pod. */
  private void fill(List<String> ids) {
    Pod writer = pod(null);
    writer.cache.getAll(ids);
    await().atMost(Duration.ofSeconds(10))
        .until(() -> writer.count("warmgate.l2.writes") == ids.size());
  }

  private static List<String> ids(String prefix, int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  @Test
  void blockingGetInsideCallbackOfAnL2HitIsServedFromL2() throws Exception {
    List<String> first = ids("a-", 10);
    List<String> second = ids("b-", 10);
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    fill(all);
    Pod reader = pod(null);

    for (int i = 0; i < first.size(); i++) {
      String b = second.get(i);
      Stamp joined = reader.cache.getAsync(first.get(i))
          .thenApply(a -> new Stamp(a.value() + "+" + reader.cache.get(b).value()))
          .get(30, TimeUnit.SECONDS);
      assertThat(joined.value()).isEqualTo("v-" + first.get(i) + "+v-" + b);
    }

    assertThat(reader.count("warmgate.l2.errors", "kind", "timeout")).isZero();
    assertThat(reader.count("warmgate.l2.errors", "kind", "failure")).isZero();
    assertThat(reader.count("warmgate.cache.gets", "tier", "l2", "result", "hit"))
        .isEqualTo(all.size());
    assertThat(reader.count("warmgate.origin.loads")).isZero();
  }

  @Test
  void asyncL2HitsCompleteAndDecodeOnTheCompletionPool() throws Exception {
    List<String> ids = ids("deal-", 40);
    fill(ids);
    Pod reader = pod(null);
    Stamp.decodedOn.clear();

    Set<String> completedOn = completingThreads(reader, ids);

    assertThat(completedOn).noneMatch(name -> name.startsWith("lettuce-"));
    // Most callbacks are attached before the reply arrives, so they run where the future completes.
    assertThat(completedOn).anyMatch(name -> name.startsWith("warmgate-deals-completion-"));
    // Or on this thread, for a reply handed over before the lookup attached its decoding.
    String caller = Thread.currentThread().getName();
    assertThat(Stamp.decodedOn).isNotEmpty()
        .allMatch(name -> name.startsWith("warmgate-deals-completion-") || name.equals(caller))
        .anyMatch(name -> name.startsWith("warmgate-deals-completion-"));
    assertThat(reader.count("warmgate.cache.gets", "tier", "l2", "result", "hit"))
        .isEqualTo(ids.size());
  }

  @Test
  void givenCompletionExecutorCompletesAsyncL2Hits() throws Exception {
    List<String> ids = ids("deal-", 20);
    fill(ids);
    Pod reader = pod(mine);
    Stamp.decodedOn.clear();

    Set<String> completedOn = completingThreads(reader, ids);

    assertThat(completedOn).noneMatch(name -> name.startsWith("lettuce-"))
        .contains("mine-completion");
    // Or on this thread, for a reply handed over before the lookup attached its decoding.
    assertThat(Stamp.decodedOn).contains("mine-completion")
        .isSubsetOf("mine-completion", Thread.currentThread().getName());
  }

  @Test
  void synchronousL2HitDecodesOnTheCallingThread() {
    List<String> ids = ids("deal-", 12);
    fill(ids);
    Pod reader = pod(null);
    Stamp.decodedOn.clear();

    for (String id : ids.subList(0, 10)) {
      assertThat(reader.cache.get(id).value()).isEqualTo("v-" + id);
    }
    assertThat(reader.cache.getAll(ids.subList(10, 12))).hasSize(2);

    assertThat(Stamp.decodedOn).containsExactly(Thread.currentThread().getName());
    assertThat(reader.count("warmgate.cache.gets", "tier", "l2", "result", "hit"))
        .isEqualTo(ids.size());
  }

  /** The threads that ran a callback of each lookup's future, one by one and in pairs. */
  private static Set<String> completingThreads(Pod reader, List<String> ids) throws Exception {
    List<CompletableFuture<String>> threads = new ArrayList<>();
    for (int i = 0; i < ids.size(); i += 2) {
      threads.add(reader.cache.getAsync(ids.get(i)).thenApply(v -> Thread.currentThread().getName()));
      threads.add(reader.cache.getAllAsync(List.of(ids.get(i + 1)))
          .thenApply(v -> Thread.currentThread().getName()));
    }
    Set<String> names = ConcurrentHashMap.newKeySet();
    for (CompletableFuture<String> f : threads) {
      names.add(f.get(30, TimeUnit.SECONDS));
    }
    return names;
  }
}
