package io.warmgate.operator.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.valkey.ValkeyCommands;
import io.warmgate.testing.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Garbage planted in what the operator reads from Valkey (docs/valkey-layout.md). Entries it cannot
 * use are skipped or read as a safe default that never releases a canary early; a key of the wrong
 * type that the gate needs fails the read (the gate then holds, see BadInputReconcileIT); one that
 * only feeds status.keySpaces reads as empty.
 */
class MalformedValkeyIT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  final ControlKeys keys = new ControlKeys("deals");
  final Instant now = Instant.ofEpochSecond(1_700_000_055L);
  RedisClient client;
  StatefulRedisConnection<String, String> connection;
  RedisCommands<String, String> r;
  NamespaceStats stats;

  @BeforeEach
  void connect() {
    redis.flushAll();
    client = RedisClient.create(redis.uri());
    connection = client.connect();
    r = connection.sync();
    stats = new NamespaceStats(new ValkeyCommands(connection.sync(), connection.async()), keys,
        Duration.ofSeconds(5));
  }

  @AfterEach
  void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  @Test
  void registryEntriesThatAreEmptyNullNestedHugeOrOddlyTypedAreSkipped() {
    long later = now.plusSeconds(15).toEpochMilli();
    r.hset(keys.agents(), Map.of(
        "good", "{\"podTemplateHash\":\"c1\",\"schemaHash\":\"bbb\",\"expiresAt\":" + later + "}",
        "empty", "",
        "null", "null",
        "array", "[1,2]",
        "nested", "[".repeat(5_000) + "]".repeat(5_000),
        "huge", "{\"podTemplateHash\":\"" + "x".repeat(1 << 20),
        "expires-as-text", "{\"podTemplateHash\":\"c1\",\"schemaHash\":\"ccc\",\"expiresAt\":\"soon\"}",
        "expires-beyond-long", "{\"podTemplateHash\":\"c1\",\"schemaHash\":\"ddd\",\"expiresAt\":1e400}",
        "hash-as-object", "{\"podTemplateHash\":{\"a\":1},\"schemaHash\":\"eee\",\"expiresAt\":"
            + later + "}"));

    assertThat(AgentRegistry.live(r, keys, "ns", now)).containsExactly(new Agent("good", null, "c1", "bbb", later));
  }

  @Test
  void registryOfTheWrongTypeFailsTheReadSoTheGateHolds() {
    r.set(keys.agents(), "garbage");

    assertThatThrownBy(() -> AgentRegistry.live(r, keys, "ns", now)).isInstanceOf(RedisException.class)
        .hasMessageStartingWith("key {wg:deals}:agents holds a value of another type than "
            + "docs/valkey-layout.md gives it (WRONGTYPE");
  }

  @Test
  void regressionHitRatioOfOverflowingCountersStaysBetweenZeroAndOne() {
    // Summed as longs, Long.MAX_VALUE hits and misses gave a ratio of about -4.6e18.
    r.hset(keys.statsBucket("bbb", 1_700_000_050L), Map.of("l1Hits", Long.toString(Long.MAX_VALUE),
        "misses", Long.toString(Long.MAX_VALUE)));

    assertThat(stats.hitRatio("bbb", Duration.ofSeconds(10), now)).isEqualTo(0.5);
  }

  @Test
  void nonNumericAndNegativeCountersReadAsZero() {
    r.hset(keys.statsBucket("bbb", 1_700_000_050L), Map.of("l1Hits", "lots", "l2Hits", "-40",
        "misses", "1.5"));
    r.hset(keys.statsBucket("bbb", 1_700_000_040L), Map.of("l1Hits", "3", "misses", "1"));

    assertThat(stats.hitRatio("bbb", Duration.ofSeconds(15), now)).isEqualTo(0.75);
  }

  @Test
  void regressionStatsBucketOfTheWrongTypeCountsAsEmptyInsteadOfFailingTheGate() {
    r.set(keys.statsBucket("bbb", 1_700_000_050L), "garbage");
    r.hset(keys.statsBucket("bbb", 1_700_000_040L), Map.of("l1Hits", "1", "misses", "1"));

    assertThat(stats.hitRatio("bbb", Duration.ofSeconds(15), now)).isEqualTo(0.5);
  }

  @Test
  void regressionKeysCounterOfTheWrongTypeReadsAsZeroInsteadOfFailingTheGate() {
    r.set(keys.keysWritten("bbb"), "not a hyperloglog");

    assertThat(stats.keyCount("bbb")).isZero();
  }

  @Test
  void hotSetWithOddMembersCountsEachUnderItsEscapedKey() {
    String big = "k".repeat(10_240);
    r.zadd(keys.hot(), 5, "");
    r.zadd(keys.hot(), 4, big);
    r.zadd(keys.hot(), 3, "{wg:deals}:agents");
    r.zadd(keys.hot(), 2, "\n\u0000*");
    r.set("wg:deals:bbb:", "v"); // the empty id: no agent writes it, but the count stays exact
    r.set("wg:deals:bbb:" + big, "v");
    r.set("wg:deals:bbb:%0A%00%2A", "v");
    r.set(keys.agents(), "must not be mistaken for a value key");

    assertThat(stats.coverage("bbb", stats.hotSet(10, Duration.ofMinutes(4), now).ids()))
        .isEqualTo(new Coverage(3, 4));
  }

  @Test
  void hotSetOfTheWrongTypeFailsTheReadSoTheGateHolds() {
    r.hset(keys.hot(), "deal-1", "5");

    assertThatThrownBy(() -> stats.hotSet(10, Duration.ofMinutes(4), now))
        .isInstanceOf(RedisException.class)
        .hasMessageStartingWith("key {wg:deals}:hot holds a value of another type than "
            + "docs/valkey-layout.md gives it (WRONGTYPE");
  }

  @Test
  void hotSetMetaOrLandmarkOfAnotherTypeMeansNoForecastNamingTheKey() {
    r.zadd(keys.hot(), 1, "a");
    r.set(keys.hotLandmark(), "1700000000000");
    r.set(keys.hotMeta(), "garbage");
    Duration l2Ttl = Duration.ofMinutes(4);

    assertThat(stats.hotSet(10, l2Ttl, now).describe()).isEqualTo("hot set: all 1 tracked ids, "
        + "not forecast: {wg:deals}:hot:meta holds a string, not a hash");

    r.del(keys.hotLandmark());
    r.hset(keys.hotLandmark(), "not", "a string");
    r.del(keys.hotMeta());
    r.hset(keys.hotMeta(), Map.of("since", "1", "halfLifeMs", "600000", "samplePeriod", "16"));
    assertThat(stats.hotSet(10, l2Ttl, now).noForecast())
        .isEqualTo("{wg:deals}:hot:landmark holds a hash, not a string");
  }

  @Test
  void warmJobWithGarbageFieldsReadsAsNoProgressAndItsMessageIsBounded() {
    r.hset(keys.warmJob("bbb"), Map.of("state", "Bogus", "target", "lots", "filled", "-5",
        "errors", "1e3", "message", "m".repeat(1 << 20)));

    WarmJob job = WarmJobs.read(r, keys, "bbb");

    assertThat(job.target()).isZero();
    assertThat(job.filled()).isZero();
    assertThat(job.errors()).isZero();
    assertThat(job.summary()).startsWith("warm job Bogus 0/0 loaded (mmm")
        .endsWith("... (1048576 chars))").hasSizeLessThan(400);
  }

  @Test
  void warmJobOrItsIdListOfTheWrongTypeFailsTheReadSoTheGateHolds() {
    r.set(keys.warmJob("bbb"), "garbage");
    r.set(keys.warmIds("ccc"), "garbage");

    assertThatThrownBy(() -> WarmJobs.read(r, keys, "bbb")).isInstanceOf(RedisException.class)
        .hasMessageStartingWith("key {wg:deals}:warm:bbb holds a value of another type");
    assertThatThrownBy(() -> stats.jobCoverage("ccc")).isInstanceOf(RedisException.class)
        .hasMessageStartingWith("key {wg:deals}:warm:ccc:ids holds a value of another type");
  }
}
