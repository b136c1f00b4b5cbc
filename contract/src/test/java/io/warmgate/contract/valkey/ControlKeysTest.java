package io.warmgate.contract.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The bytes of every key name, as agents of earlier versions wrote them. */
class ControlKeysTest {

  final ControlKeys keys = new ControlKeys("deals");

  @Test
  void controlKeysStartWithTheCachesHashTag() {
    assertThat(keys.tag()).isEqualTo("{wg:deals}");
    assertThat(keys.agents()).isEqualTo("{wg:deals}:agents");
    assertThat(keys.agentsSweep()).isEqualTo("{wg:deals}:agents:sweep");
    assertThat(keys.spaces()).isEqualTo("{wg:deals}:spaces");
    assertThat(keys.stats("ab12")).isEqualTo("{wg:deals}:stats:ab12");
    assertThat(keys.statsBucket("ab12", 1700000000L)).isEqualTo("{wg:deals}:stats:ab12:1700000000");
    assertThat(keys.keysWritten("ab12")).isEqualTo("{wg:deals}:keys:ab12");
    assertThat(keys.hot()).isEqualTo("{wg:deals}:hot");
    assertThat(keys.hotLandmark()).isEqualTo("{wg:deals}:hot:landmark");
    assertThat(keys.hotMeta()).isEqualTo("{wg:deals}:hot:meta");
    assertThat(keys.warmJob("ab12")).isEqualTo("{wg:deals}:warm:ab12");
    assertThat(keys.warmIds("ab12")).isEqualTo("{wg:deals}:warm:ab12:ids");
    assertThat(keys.warmLock("ab12")).isEqualTo("{wg:deals}:warm:ab12:lock");
    assertThat(keys.invalidations()).isEqualTo("{wg:deals}:invalidations");
    assertThat(keys.invalidationsSeq()).isEqualTo("{wg:deals}:invalidations:seq");
    assertThat(keys.changes("DealChanges")).isEqualTo("{wg:deals}:changes:DealChanges");
    assertThat(keys.changesLock("DealChanges")).isEqualTo("{wg:deals}:changes:DealChanges:lock");
  }

  @Test
  void valueKeysCarryNoTagAndEscapeTheId() {
    ValueKeys values = keys.values("ab12");
    assertThat(values.prefix()).isEqualTo("wg:deals:ab12:");
    assertThat(values.value("deal-000001")).isEqualTo("wg:deals:ab12:deal-000001");
    assertThat(values.value("a:b c%")).isEqualTo("wg:deals:ab12:a%3Ab%20c%25");
    assertThat(values.value("é~_.")).isEqualTo("wg:deals:ab12:%C3%A9~_.");
    assertThat(values.value("{wg:deals}")).doesNotContain("{");
  }

  @Test
  void anIdsLockAndLeaseTakeItsValueKeyAsTheirTag() {
    ValueKeys values = keys.values("ab12");
    assertThat(values.lock("deal-000001")).isEqualTo("{wg:deals:ab12:deal-000001}:lock");
    assertThat(values.fill("deal-000001")).isEqualTo("{wg:deals:ab12:deal-000001}:fill");
    assertThat(values.fill("a:b")).isEqualTo("{wg:deals:ab12:a%3Ab}:fill");
  }
}
