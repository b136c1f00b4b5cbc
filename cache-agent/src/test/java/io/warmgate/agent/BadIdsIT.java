package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ids that could break key spaces, glob patterns, hash tags or Lua, sent through a real Redis:
 * each is written by one pod under its escaped key in its own namespace, read back by another pod
 * without an origin call, and never seen by a SCAN of another cache or schema.
 */
class BadIdsIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  @RegisterExtension
  final RedisConnectionExtension valkey = new RedisConnectionExtension(redis);

  private final CountingOrigin origin = new CountingOrigin();
  private final List<TieredCache<?>> opened = new ArrayList<>();

  @AfterEach
  void close() {
    opened.forEach(TieredCache::close);
  }

  private <V> TieredCache<V> pod(String cacheName, Class<V> type, Origin<V> from) {
    TieredCache<V> cache = WarmGate.newBuilder(type, from).cacheName(cacheName)
        .valkeyUri(redis.uri()).meterRegistry(new SimpleMeterRegistry())
        .l2Timeout(Duration.ofMillis(500)).build();
    opened.add(cache);
    return cache;
  }

  static Stream<Arguments> ids() {
    return Stream.of(
        Arguments.of("newline", "deal\n1"),
        Arguments.of("NUL", "deal\u00001"),
        Arguments.of("bell", "\u0007"),
        Arguments.of("CRLF as in RESP", "x\r\n*1\r\n$8\r\nFLUSHALL\r\n"),
        Arguments.of("glob ?", "deal-?"),
        Arguments.of("glob class", "[a-z]*"),
        Arguments.of("lone ]", "]"),
        Arguments.of("hash tag of another cache", "{wg:other}:agents"),
        Arguments.of("key of another schema", "0123456789ab:deal-1"),
        Arguments.of("lock suffix", "deal-1:lock"),
        Arguments.of("Lua code", "']); redis.call('FLUSHALL') --"),
        Arguments.of("Lua long bracket", "]]..[[=]]"),
        Arguments.of("percent-escaped look-alike", "deal%3A1"),
        Arguments.of("unicode", "日本語-ü-🚀"),
        Arguments.of("512 bytes of control characters", "\u0001\u001f".repeat(256)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ids")
  void oddIdIsStoredUnderItsEscapedKeyAndReadBackByAnotherPod(String name, String id) {
    origin.put(id, "value of " + name);
    TieredCache<String> a = pod("deals", String.class, origin);
    TieredCache<String> b = pod("deals", String.class, origin);
    TieredCache<String> other = pod("deals-2", String.class, origin);
    String key = new KeySpace("deals", a.schemaHash()).valueKey(id);

    assertThat(a.get(id)).isEqualTo("value of " + name);
    await().atMost(Duration.ofSeconds(5)).until(() -> valkey.sync().exists(key) == 1);

    assertThat(b.get(id)).isEqualTo("value of " + name);
    assertThat(origin.calls()).as("the second pod read L2").isEqualTo(1);
    assertThat(scan("*")).containsExactly(key);
    assertThat(key).matches("wg:deals:" + a.schemaHash() + ":[A-Za-z0-9._~%-]+");
    assertThat(scan("wg:deals-2:*")).isEmpty();
    assertThat(scan("{wg:*")).isEmpty();
    // Another cache asks the origin itself instead of finding the first cache's value.
    assertThat(other.get(id)).isEqualTo("value of " + name);
    assertThat(origin.calls()).isEqualTo(2);
  }

  @Test
  void idsThatLookLikeAnotherIdsKeyNeverShareIt() {
    // "a:b" in cache "deals" vs an id "b" of a cache "deals:a" (refused as a cache name anyway),
    // an escaped look-alike, and an id naming another schema's namespace.
    List<String> ids = List.of("a:b", "a%3Ab", "a%253Ab", "b", "x:lock", "x",
        "0123456789ab:x", "deals:0123456789ab:x");
    ids.forEach(id -> origin.put(id, "v-" + id));
    TieredCache<String> a = pod("deals", String.class, origin);
    TieredCache<String> b = pod("deals", String.class, origin);

    ids.forEach(a::get);
    await().atMost(Duration.ofSeconds(5)).until(() -> scan("wg:deals:*").size() == ids.size());
    for (String id : ids) {
      assertThat(b.get(id)).as(id).isEqualTo("v-" + id);
    }
    assertThat(origin.calls()).isEqualTo(ids.size());
  }

  /**
   * The bound stated in {@link TieredCache}: one lookup of an unknown id writes at most
   * 6 × maxIdBytes + 2c + 3h + p + 67 bytes of keys and values. Measured as the keys and value
   * lengths on the server while the origin is being read (the fill lease is held then) and after
   * the lookup (the lease is gone, the negative entry stays).
   */
  @Test
  void lookupOfAnUnknownIdOfTheMaximumSizeWritesAtMostTheStatedBytes() {
    // 256 two-byte chars: 512 bytes of UTF-8, each escaped to %XX in keys.
    String id = "\u00e9".repeat(TieredCache.DEFAULT_MAX_ID_BYTES / 2);
    Map<String, Long> seen = new ConcurrentHashMap<>();
    Origin<String> unknownIds = ids -> {
      seen.putAll(sizes());
      return Map.of();
    };
    String podName = "pod-a";
    TieredCache<String> cache = WarmGate.newBuilder(String.class, unknownIds).cacheName("deals")
        .valkeyUri(redis.uri()).podName(podName).meterRegistry(new SimpleMeterRegistry())
        .l2Timeout(Duration.ofMillis(500)).build();
    opened.add(cache);
    String valueKey = new KeySpace("deals", cache.schemaHash()).valueKey(id);

    assertThat(cache.get(id)).isNull();
    await().atMost(Duration.ofSeconds(5)).until(() -> scan("*").equals(List.of(valueKey)));
    seen.putAll(sizes());

    // What each key and value must be, spelled from the formats the javadocs state (value key
    // wg:<cache>:<hash>:<id escaped %XX per UTF-8 byte>, lease key {<value key>}:fill, negative
    // envelope 'w' 'g' version flags hash-length hash fetched-at, lease token <pod>/<uuid>),
    // not from the code that builds them.
    String hash = cache.schemaHash();
    String expectedValueKey = "wg:deals:" + hash + ":" + "%C3%A9".repeat(256);
    String expectedLeaseKey = "{" + expectedValueKey + "}:fill";
    long negativeEnvelope = 2 + 1 + 1 + 1 + hash.length() + 8;
    long leaseToken = podName.length() + 1 + UUID.randomUUID().toString().length();
    assertThat(valueKey).isEqualTo(expectedValueKey);
    assertThat(seen).containsOnly(Map.entry(expectedValueKey, negativeEnvelope),
        Map.entry(expectedLeaseKey, leaseToken));
    long written = seen.entrySet().stream()
        .mapToLong(e -> e.getKey().getBytes(StandardCharsets.UTF_8).length + e.getValue()).sum();
    // The bound TieredCache states, for this cache name, hash and pod name: exactly what one
    // lookup of a maximal unknown id writes.
    int c = "deals".length();
    int h = hash.length();
    long bound = 6L * TieredCache.DEFAULT_MAX_ID_BYTES + 2 * c + 3 * h + podName.length() + 67;
    assertThat(written).as("bytes of keys and values").isEqualTo(bound);
  }

  /** Each key on the server and the length of its (string) value. */
  private Map<String, Long> sizes() {
    Map<String, Long> sizes = new HashMap<>();
    for (String key : scan("*")) {
      sizes.put(key, valkey.sync().strlen(key));
    }
    return sizes;
  }

  private List<String> scan(String pattern) {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(valkey.sync(), ScanArgs.Builder.matches(pattern).limit(1000))
        .forEachRemaining(keys::add);
    return keys;
  }
}
