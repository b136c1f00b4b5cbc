package io.warmgate.operator.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Key names exactly as docs/valkey-layout.md and the agent's KeySpace define them. */
class ControlKeysTest {

  final ControlKeys keys = new ControlKeys("deals");

  @Test
  void controlKeysShareTheCacheHashTag() {
    assertThat(keys.agents()).isEqualTo("{wg:deals}:agents");
    assertThat(keys.hot()).isEqualTo("{wg:deals}:hot");
    assertThat(keys.hotLandmark()).isEqualTo("{wg:deals}:hot:landmark");
    assertThat(keys.hotMeta()).isEqualTo("{wg:deals}:hot:meta");
    assertThat(keys.keys("ab12")).isEqualTo("{wg:deals}:keys:ab12");
    assertThat(keys.statsBucket("ab12", 1700000000L)).isEqualTo("{wg:deals}:stats:ab12:1700000000");
    assertThat(keys.warmJob("ab12")).isEqualTo("{wg:deals}:warm:ab12");
    assertThat(keys.warmIds("ab12")).isEqualTo("{wg:deals}:warm:ab12:ids");
    assertThat(keys.changes("DealChanges")).isEqualTo("{wg:deals}:changes:DealChanges");
  }

  /** The key the agent's change-stream watcher saves its progress under. */
  @Test
  void changeStreamKeyIsTheWatchersKey() {
    assertThat(keys.changes("DealChanges")).isEqualTo(
        new io.warmgate.agent.l2.KeySpace("deals", "ab12").controlKey("changes:DealChanges"));
  }

  @Test
  void valueKeysEscapeIdsLikeTheAgent() {
    assertThat(keys.value("ab12", "deal-000001")).isEqualTo("wg:deals:ab12:deal-000001");
    assertThat(keys.value("ab12", "a:b c%")).isEqualTo("wg:deals:ab12:a%3Ab%20c%25");
    assertThat(keys.value("ab12", "é~_.")).isEqualTo("wg:deals:ab12:%C3%A9~_.");
  }
}
