package io.warmgate.agent.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.warmgate.agent.RawRedis;
import io.warmgate.agent.deal.Deal;
import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.testing.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Unreadable and foreign bytes planted under real value keys of a filled L2, read by two pods under
 * a steady ~1,000 lookups/s: each is a counted miss, loaded from the origin and overwritten.
 */
class CorruptL2IT {

  @RegisterExtension
  static final RedisExtension redis = new RedisExtension();

  private static final int DEALS = 2_000;
  private static final int PER_KIND = 25;
  /** A foreign writer: same cache and key, another schema. */
  private static final String FOREIGN_HASH = "ffffffffffff";

  @Test
  void plantedBytesAreCountedMissesReloadedAndOverwrittenNeverErrors() throws Exception {
    redis.flushAll();
    InMemoryDeals origin = new InMemoryDeals(DEALS, 1);
    List<String> ids = InMemoryDeals.ids(DEALS);
    // Generous budget: a timeout would also send an id to the origin and blur the accounting.
    try (Pod<Deal> writer = Pod.start("writer", origin, redis.uri(), w -> w);
        Pod<Deal> a = Pod.start("pod-a", origin, redis.uri(), w -> w.l2Timeout(Duration.ofMillis(500)));
        Pod<Deal> b = Pod.start("pod-b", origin, redis.uri(), w -> w.l2Timeout(Duration.ofMillis(500)));
        RawRedis raw = new RawRedis(redis.uri())) {
      writer.cache.fillL2(ids.subList(0, 1_000));
      writer.cache.fillL2(ids.subList(1_000, DEALS));
      KeySpace keys = writer.keys();
      byte[] good = raw.sync().get(keys.valueKey(ids.get(0)));
      List<String> planted = ids.subList(100, 100 + 4 * PER_KIND);
      for (int i = 0; i < planted.size(); i++) {
        raw.sync().set(keys.valueKey(planted.get(i)), badBytes(i / PER_KIND, good, keys.schemaHash()));
      }

      LoadDriver<Deal> load = LoadDriver.start(List.of(a.cache, b.cache), KeyChooser.uniform(ids), 1_000,
          3, (id, deal) -> deal != null && deal.dealId().equals(id), "planted");
      LoadDriver.hold(5_000);
      Phase phase = load.stop().get(0);
      // Every planted id read by both pods at least once, whatever the random load picked.
      assertThat(a.cache.getAll(planted)).hasSize(planted.size());
      assertThat(b.cache.getAll(planted)).hasSize(planted.size());

      long corrupt = a.count("warmgate.l2.corrupt") + b.count("warmgate.l2.corrupt");
      long misses = a.l2Misses() + b.l2Misses();
      long originKeys = a.origin.keys() + b.origin.keys();
      // A pod that missed a planted key while the other was loading it serves the other's value.
      long waited = a.count("warmgate.fill.lease", "outcome", "waited")
          + b.count("warmgate.fill.lease", "outcome", "waited");
      System.out.println(a.figures());
      System.out.println(b.figures());
      System.out.printf("planted %d keys (%d each: garbage, truncated, foreign schema, bad payload);"
          + " corrupt reads %d, L2 misses %d, origin keys %d, waited for the other pod %d%n",
          planted.size(), PER_KIND, corrupt, misses, originKeys, waited);

      assertThat(phase.failures()).as(phase.toString()).isZero();
      assertThat(corrupt).as("each planted key read as corrupt at least once, at most once per pod")
          .isBetween((long) planted.size(), 2L * planted.size());
      assertThat(misses).as("every L2 miss was a planted key").isEqualTo(corrupt);
      assertThat(originKeys + waited)
          .as("every corrupt read, and nothing else, went to the origin or waited for the other pod")
          .isEqualTo(corrupt);
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
        for (String id : planted) {
          Envelope envelope = Envelope.decode(raw.sync().get(keys.valueKey(id)), keys.schemaHash());
          assertThat(envelope.isFound()).as("good envelope rewritten for %s", id).isTrue();
        }
      });
    }
  }

  /** Kind 0: not an envelope; 1: a truncated one; 2: another schema's; 3: ours with an unreadable payload. */
  private static byte[] badBytes(int kind, byte[] good, String schemaHash) {
    long now = System.currentTimeMillis();
    return switch (kind) {
      case 0 -> "not an envelope".getBytes(StandardCharsets.UTF_8);
      case 1 -> Arrays.copyOf(good, 20);
      case 2 -> Envelope.found(FOREIGN_HASH, now, Arrays.copyOfRange(good, 25, good.length)).encode();
      default -> Envelope.found(schemaHash, now, new byte[] {1, 2, 3}).encode();
    };
  }
}
