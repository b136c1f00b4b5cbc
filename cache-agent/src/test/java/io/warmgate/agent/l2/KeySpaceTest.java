package io.warmgate.agent.l2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeySpaceTest {

  private final KeySpace keys = new KeySpace("deals", "0123456789ab");

  @Test
  void valueKeyIsPrefixHashAndId() {
    assertThat(keys.valueKey("deal-000001")).isEqualTo("wg:deals:0123456789ab:deal-000001");
    assertThat(keys.lockKey("deal-000001")).isEqualTo("{wg:deals:0123456789ab:deal-000001}:lock");
    assertThat(keys.fillKey("deal-000001")).isEqualTo("{wg:deals:0123456789ab:deal-000001}:fill");
    assertThat(keys.valuePrefix()).isEqualTo("wg:deals:0123456789ab:");
  }

  @Test
  void anIdsLockAndLeaseShareItsValuesClusterSlot() {
    for (String id : List.of("deal-000001", "deal-000002", "a:b", "{x}", "}", "日本", "")) {
      int slot = SlotHash.getSlot(keys.valueKey(id));
      assertThat(SlotHash.getSlot(keys.lockKey(id))).as("lock of '%s'", id).isEqualTo(slot);
      assertThat(SlotHash.getSlot(keys.fillKey(id))).as("lease of '%s'", id).isEqualTo(slot);
    }
  }

  @Test
  void regressionNoIdCollidesWithAnotherIdOrALockKey() {
    // An id that looks escaped, an id with ':lock', and their look-alikes must stay distinct.
    List<String> ids = List.of("a:b", "a%3Ab", "a%253Ab", "x", "x:lock", "x%3Alock", "x:fill",
        "é", "%C3%A9", "", " ", "%20", "+");
    Set<String> seen = new HashSet<>();
    for (String id : ids) {
      assertThat(seen.add(keys.valueKey(id))).as("value key of '%s'", id).isTrue();
      assertThat(seen.add(keys.lockKey(id))).as("lock key of '%s'", id).isTrue();
      assertThat(seen.add(keys.fillKey(id))).as("fill key of '%s'", id).isTrue();
    }
  }

  @Test
  void tenKilobyteIdMakesAKey() {
    String id = "é".repeat(5 * 1024);
    assertThat(keys.valueKey(id)).hasSize("wg:deals:0123456789ab:".length() + 10 * 1024 * 3);
  }

  @Test
  void invalidCacheNameOrHashIsRefused() {
    assertThatThrownBy(() -> new KeySpace("de:als", "ab")).hasMessageContaining("'de:als'");
    assertThatThrownBy(() -> new KeySpace("{deals}", "ab")).hasMessageContaining("'{deals}'");
    assertThatThrownBy(() -> new KeySpace("deals", "ABC")).hasMessageContaining("'ABC'");
  }
}
