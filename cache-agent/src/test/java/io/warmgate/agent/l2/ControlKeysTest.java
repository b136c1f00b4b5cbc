package io.warmgate.agent.l2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The control-key names of docs/valkey-layout.md. */
class ControlKeysTest {

  private final KeySpace keys = new KeySpace("deals", "0123456789ab");

  @Test
  void namesFollowTheLayoutDocument() {
    assertThat(keys.agentsKey()).isEqualTo("{wg:deals}:agents");
    assertThat(keys.spacesKey()).isEqualTo("{wg:deals}:spaces");
    assertThat(keys.agentsSweepKey()).isEqualTo("{wg:deals}:agents:sweep");
    assertThat(keys.statsKey()).isEqualTo("{wg:deals}:stats:0123456789ab");
    assertThat(keys.statsBucketKey(1_764_504_000L)).isEqualTo("{wg:deals}:stats:0123456789ab:1764504000");
    assertThat(keys.keysWrittenKey()).isEqualTo("{wg:deals}:keys:0123456789ab");
    assertThat(keys.hotKey()).isEqualTo("{wg:deals}:hot");
    assertThat(keys.hotLandmarkKey()).isEqualTo("{wg:deals}:hot:landmark");
    assertThat(keys.hotMetaKey()).isEqualTo("{wg:deals}:hot:meta");
    assertThat(keys.warmJobKey()).isEqualTo("{wg:deals}:warm:0123456789ab");
    assertThat(keys.warmIdsKey()).isEqualTo("{wg:deals}:warm:0123456789ab:ids");
    assertThat(keys.warmLockKey()).isEqualTo("{wg:deals}:warm:0123456789ab:lock");
    assertThat(keys.invalidationsKey()).isEqualTo("{wg:deals}:invalidations");
    assertThat(keys.invalidationsSeqKey()).isEqualTo("{wg:deals}:invalidations:seq");
    assertThat(keys.changesKey("DealChanges")).isEqualTo("{wg:deals}:changes:DealChanges");
    assertThat(keys.changesLockKey("DealChanges")).isEqualTo("{wg:deals}:changes:DealChanges:lock");
  }

  @Test
  void allControlKeysShareTheCacheHashTagAndValueKeysHaveNone() {
    List<String> control = List.of(keys.agentsKey(), keys.agentsSweepKey(), keys.spacesKey(), keys.statsKey(), keys.statsBucketKey(0),
        keys.keysWrittenKey(), keys.hotKey(), keys.hotLandmarkKey(), keys.hotMetaKey(),
        keys.warmJobKey(), keys.warmIdsKey(), keys.warmLockKey(), keys.invalidationsKey(),
        keys.invalidationsSeqKey(), keys.changesKey("S"), keys.changesLockKey("S"));
    assertThat(control).allSatisfy(k -> assertThat(k).startsWith(keys.controlTag() + ":"));
    assertThat(keys.valueKey("hot")).doesNotContain("{");
    // On a cluster: one slot for every control key (ClusterKeySpreadIT asks a real server).
    assertThat(control).extracting(SlotHash::getSlot).containsOnly(SlotHash.getSlot("wg:deals"));
    assertThat(keys.valueKey("{wg:deals}")).as("an id cannot carry the tag into a value key")
        .doesNotContain("{");
  }

  @Test
  void bucketsAreMultiplesOfTenSeconds() {
    assertThatThrownBy(() -> keys.statsBucketKey(1_764_504_005L))
        .hasMessageContaining("1764504005").hasMessageContaining("multiple of 10");
    assertThatThrownBy(() -> keys.statsBucketKey(-10))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
