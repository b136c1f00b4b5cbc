package io.warmgate.gateway.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.warmgate.gateway.key.CoalescingKey;
import io.warmgate.gateway.stream.RunStore;
import io.warmgate.gateway.stream.StreamEntry;
import io.warmgate.gateway.stream.StreamKeys;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Valkey scripts behind coalescing: join, fencing, the index-based takeover rule, finishing;
 * on one server and on a cluster, where every script runs on the primary of its key's slot.
 */
@Timeout(60)
@ParameterizedClass
@EnumSource(ValkeyMode.class)
class RunStoreIT {

  @RegisterExtension
  final ValkeyExtension valkey;

  private RedisClusterCommands<String, String> commands;
  private RunStore store;
  private StreamKeys keys;

  RunStoreIT(ValkeyMode mode) {
    valkey = new ValkeyExtension(mode);
  }

  @BeforeEach
  void connect() {
    commands = valkey.commands();
    store = new RunStore(valkey.connection().async(), Duration.ofSeconds(30), 100);
    keys = StreamKeys.of(CoalescingKey.of("t-" + System.nanoTime(),
        new ObjectMapper().valueToTree(Map.of("q", 1))));
  }

  @Test
  void takeoverResumesByIndexAndFencesTheOldHolder() {
    RunStore.Join first = store.join(keys, "run1", "podA").join();
    assertThat(first.producer()).isTrue();
    assertThat(store.join(keys, "run2", "podB").join()).isEqualTo(new RunStore.Join("run1", "running", false));
    for (int i = 0; i < 3; i++) {
      assertThat(store.append(keys, "run1", "podA", i, "", "c" + i).join()).isEqualTo(RunStore.Append.APPENDED);
    }
    assertThat(store.takeover(keys, "run1", "podB").join().outcome()).isEqualTo(RunStore.Takeover.HELD);

    commands.del(keys.lock());  // podA died: its lock expired
    RunStore.TakeoverResult takeover = store.takeover(keys, "run1", "podB").join();
    assertThat(takeover).isEqualTo(new RunStore.TakeoverResult(RunStore.Takeover.ACQUIRED, 3));

    // The old holder wakes up: fenced, nothing written.
    assertThat(store.append(keys, "run1", "podA", 3, "", "stale").join()).isEqualTo(RunStore.Append.LOST);
    assertThat(store.finish(keys, "run1", "podA", 3, StreamEntry.Type.DONE, "", Duration.ofSeconds(5)).join()).isFalse();
    // The new holder re-reads the upstream from the start: indices below 3 are dropped, 3 goes on.
    assertThat(store.append(keys, "run1", "podB", 1, "", "c1").join()).isEqualTo(RunStore.Append.DUPLICATE);
    assertThat(store.append(keys, "run1", "podB", 3, "", "c3").join()).isEqualTo(RunStore.Append.APPENDED);
    assertThatThrownBy(() -> store.append(keys, "run1", "podB", 5, "", "c5").join())
        .hasMessageContaining("gap");
    assertThat(store.finish(keys, "run1", "podB", 4, StreamEntry.Type.DONE, "", Duration.ofSeconds(5)).join()).isTrue();

    assertThat(store.readAll(keys, "run1").join())
        .extracting(StreamEntry::index, StreamEntry::type, StreamEntry::data)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0L, StreamEntry.Type.CHUNK, "c0"),
            org.assertj.core.groups.Tuple.tuple(1L, StreamEntry.Type.CHUNK, "c1"),
            org.assertj.core.groups.Tuple.tuple(2L, StreamEntry.Type.CHUNK, "c2"),
            org.assertj.core.groups.Tuple.tuple(3L, StreamEntry.Type.CHUNK, "c3"),
            org.assertj.core.groups.Tuple.tuple(4L, StreamEntry.Type.DONE, ""));
    assertThat(commands.exists(keys.lock())).isZero();
    assertThat(commands.pttl(keys.stream("run1"))).isBetween(1L, 5_000L);
    assertThat(store.join(keys, "run3", "podC").join()).isEqualTo(new RunStore.Join("run1", "done", false));
    assertThat(store.takeover(keys, "run1", "podC").join().outcome()).isEqualTo(RunStore.Takeover.TERMINAL);
  }

  @Test
  void aFailedRunIsReplacedByTheNextJoin() {
    assertThat(store.join(keys, "run1", "podA").join().producer()).isTrue();
    assertThat(store.finish(keys, "run1", "podA", 0, StreamEntry.Type.ERROR, "boom", Duration.ofSeconds(5)).join()).isTrue();
    assertThat(store.takeover(keys, "run1", "podB").join().outcome()).isEqualTo(RunStore.Takeover.TERMINAL);
    RunStore.Join next = store.join(keys, "run2", "podB").join();
    assertThat(next).isEqualTo(new RunStore.Join("run2", "running", true));
    assertThat(store.takeover(keys, "run1", "podC").join().outcome()).isEqualTo(RunStore.Takeover.GONE);
    // The failed run's error entry stays readable for its late readers.
    assertThat(store.readAll(keys, "run1").join()).singleElement()
        .satisfies(e -> assertThat(e.type()).isEqualTo(StreamEntry.Type.ERROR));
  }

  @Test
  void theBurstFlagIsPerTemplateOrGlobal() {
    assertThat(store.burstUp("a").join()).isFalse();
    store.raiseBurst("a", Duration.ofSeconds(30)).join();
    assertThat(store.burstUp("a").join()).isTrue();
    assertThat(store.burstUp("b").join()).isFalse();
    store.raiseBurst(null, Duration.ofSeconds(30)).join();
    assertThat(store.burstUp("b").join()).isTrue();
    store.clearBurst(null).join();
    store.clearBurst("a").join();
    assertThat(store.burstUp("a").join()).isFalse();
  }
}
