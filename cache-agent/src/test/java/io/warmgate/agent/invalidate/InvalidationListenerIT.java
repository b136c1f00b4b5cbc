package io.warmgate.agent.invalidate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.XAddArgs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.warmgate.agent.L2Extension;
import io.warmgate.agent.L2Mode;
import io.warmgate.agent.l2.KeySpace;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The invalidation stream and one pod's listener on a real redis-server and a real Redis cluster:
 * what it drops, and when it drops everything because it cannot know what it missed. The pod's
 * L1 is a recorder of the listener's calls.
 */
@ParameterizedClass
@EnumSource(L2Mode.class)
class InvalidationListenerIT {

  private static final KeySpace KEYS = new KeySpace("deals", "0123456789ab");

  @RegisterExtension
  final L2Extension valkey;

  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final LocalTier recorder = new LocalTier() {
    @Override
    public void dropLocal(Collection<String> ids) {
      calls.add("drop " + ids);
    }

    @Override
    public void dropAllLocal() {
      calls.add("drop all");
    }
  };
  private InvalidationListener listener;
  private final InvalidationLog stream = new InvalidationLog(KEYS);

  InvalidationListenerIT(L2Mode mode) {
    valkey = new L2Extension(mode);
  }

  @AfterEach
  void stop() {
    if (listener != null) {
      listener.close();
    }
  }

  private void listen() {
    // The test's own string connection, opened as the fleet services open theirs.
    listener = new InvalidationListener(valkey.connection(), KEYS, recorder,
        InstantSource.system(), meters);
    // The first read drops everything: lookups may have filled L1 before the listener ran.
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.contains("drop all"));
    calls.clear();
  }

  @Test
  void appendedIdsAreDroppedInOrderAndTheLagIsMeasured() {
    listen();
    stream.append(valkey.strings(), List.of("deal-1", "deal-2"), System.currentTimeMillis());
    stream.append(valkey.strings(), List.of("deal:3 with spaces \u00e9"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.size() == 2);
    assertThat(calls).containsExactly("drop [deal-1, deal-2]", "drop [deal:3 with spaces \u00e9]");
    assertThat(meters.get("warmgate.invalidation.ids").counter().count()).isEqualTo(3);
    assertThat(meters.get("warmgate.invalidation.lag").timer().count()).isEqualTo(2);
    assertThat(meters.get("warmgate.invalidation.resyncs").counter().count()).isZero();
  }

  @Test
  void aCallOfMoreThanOneEntrysWorthIsSplitAndReadWhole() {
    listen();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < InvalidationLog.MAX_IDS_PER_ENTRY * 2 + 1; i++) {
      ids.add("deal-" + i);
    }
    stream.append(valkey.strings(), ids, System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.size() == 3);
    assertThat(meters.get("warmgate.invalidation.ids").counter().count()).isEqualTo(ids.size());
  }

  @Test
  void anEntryItCannotReadDropsEverything() {
    listen();
    valkey.strings().xadd(KEYS.invalidationsKey(), Map.of("something", "else"));
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop all"));
    stream.append(valkey.strings(), List.of("deal-1"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-1]"));
  }

  @Test
  void aStreamThatLostEntriesItHadNotReadMakesItDropEverythingOnceItReadsAgain() {
    listen();
    stream.append(valkey.strings(), List.of("deal-1"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-1]"));
    // A failover that lost the newest appends, or a Valkey restarted empty: the counter and the
    // stream start over, and an older entry id comes back. The listener's blocked read sees
    // nothing newer than what it read, then its connection breaks.
    valkey.strings().del(KEYS.invalidationsKey(), KEYS.invalidationsKey() + ":seq");
    valkey.strings().xadd(KEYS.invalidationsKey(), new XAddArgs().id("1-1"),
        Map.of("ids", "[\"deal-9\"]", "at", "0", "seq", "1"));
    valkey.strings().set(KEYS.invalidationsKey() + ":seq", "1");
    assertThat(stream.state(valkey.strings()).lostAfter(1)).isFalse();
    valkey.killClients();

    await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("drop all"));
    assertThat(meters.get("warmgate.invalidation.resyncs").counter().count()).isEqualTo(1);
    appendOnceConnected("deal-2");
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.contains("drop [deal-2]"));
    assertThat(calls).doesNotContain("drop [deal-9]");
  }

  @Test
  void aValkeyThatLostItsDataWhileTheListenerWasAwayMakesItDropEverything() {
    listen();
    stream.append(valkey.strings(), List.of("deal-1"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-1]"));
    valkey.killClients();
    // Valkey came back empty and two invalidations were written before the listener reconnected:
    // the counter starts over, so the first entry's number does not follow the last one read.
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() ->
        valkey.strings().del(KEYS.invalidationsKey(), KEYS.invalidationsKey() + ":seq") >= 0);
    appendOnceConnected("deal-8");
    appendOnceConnected("deal-9");
    await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("drop all"));
    appendOnceConnected("deal-10");
    await().atMost(Duration.ofSeconds(5)).until(() -> calls.contains("drop [deal-10]"));
  }

  @Test
  void aBrokenConnectionWithNothingLostLosesNothing() {
    listen();
    stream.append(valkey.strings(), List.of("deal-1"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-1]"));
    valkey.killClients();
    appendOnceConnected("deal-2");
    await().atMost(Duration.ofSeconds(10)).until(() -> calls.contains("drop [deal-2]"));
    assertThat(calls).doesNotContain("drop all");
  }

  @Test
  void aGapInTheNumbersDropsEverything() {
    listen();
    stream.append(valkey.strings(), List.of("deal-1"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-1]"));
    // An append the listener never sees: its number is taken, its entry gone.
    valkey.strings().incr(KEYS.invalidationsKey() + ":seq");
    stream.append(valkey.strings(), List.of("deal-3"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop all"));
    stream.append(valkey.strings(), List.of("deal-4"), System.currentTimeMillis());
    await().atMost(Duration.ofSeconds(2)).until(() -> calls.contains("drop [deal-4]"));
    assertThat(calls).doesNotContain("drop [deal-3]");
  }

  /** Appends once the test's connection, broken by {@link L2Extension#killClients}, is back. */
  private void appendOnceConnected(String id) {
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() ->
        stream.append(valkey.strings(), List.of(id), System.currentTimeMillis()) > 0);
  }

  @Test
  void theStreamsStateTellsTrimmedAndLostAppendsApart() {
    var redis = valkey.strings();
    assertThat(stream.state(redis)).isEqualTo(new InvalidationLog.State(0, 0, StreamId.ZERO));
    assertThat(stream.state(redis).lostAfter(0)).isFalse();
    assertThat(stream.append(redis, List.of("a"), 1)).isEqualTo(1);
    assertThat(stream.append(redis, List.of("b"), 2)).isEqualTo(2);
    assertThat(stream.state(redis).firstSeq()).isEqualTo(1);
    assertThat(stream.state(redis).lostAfter(1)).isFalse();
    assertThat(stream.state(redis).lostAfter(2)).isFalse();
    redis.xtrim(KEYS.invalidationsKey(), 1);
    assertThat(stream.state(redis).lostAfter(0)).as("a was trimmed unread").isTrue();
    assertThat(stream.state(redis).lostAfter(1)).as("only b is left, and it is unread").isFalse();
    redis.xtrim(KEYS.invalidationsKey(), 0);
    assertThat(stream.state(redis).lostAfter(1)).as("b was trimmed unread").isTrue();
    assertThat(stream.state(redis).lostAfter(2)).as("all read before the trim").isFalse();
    redis.del(KEYS.invalidationsKey(), KEYS.invalidationsKey() + ":seq");
    assertThat(stream.state(redis).lostAfter(2)).as("counter gone: appends lost").isTrue();
  }
}
