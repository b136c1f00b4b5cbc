package io.warmgate.agent.l2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class EnvelopeTest {

  private static final String HASH = "0123456789ab";

  @Test
  void foundEnvelopeRoundTrips() {
    byte[] payload = "payload".getBytes(StandardCharsets.UTF_8);
    Envelope decoded = Envelope.decode(Envelope.found(HASH, 1_772_366_400_123L, payload).encode(), HASH);
    assertThat(decoded.isFound()).isTrue();
    assertThat(decoded.schemaHash()).isEqualTo(HASH);
    assertThat(decoded.fetchedAtMillis()).isEqualTo(1_772_366_400_123L);
    assertThat(decoded.payload()).isEqualTo(payload);
  }

  @Test
  void notFoundEnvelopeRoundTrips() {
    byte[] bytes = Envelope.notFound(HASH, 42).encode();
    assertThat(bytes).hasSize(25);
    Envelope decoded = Envelope.decode(bytes, HASH);
    assertThat(decoded.isFound()).isFalse();
    assertThat(decoded.payload()).isNull();
    assertThat(decoded.fetchedAtMillis()).isEqualTo(42);
  }

  @Test
  void layoutIsPinned() {
    byte[] bytes = Envelope.found("abc", 1L, new byte[] {9}).encode();
    assertThat(HexFormat.of().formatHex(bytes)).isEqualTo("7767" + "01" + "01" + "03" + "616263"
        + "0000000000000001" + "09");
  }

  @Test
  void foreignSchemaHashIsRejected() {
    byte[] bytes = Envelope.found("ffffffffffff", 1, new byte[] {1}).encode();
    assertThatThrownBy(() -> Envelope.decode(bytes, HASH))
        .isInstanceOf(Envelope.EnvelopeException.class)
        .hasMessageContaining("schema ffffffffffff, expected " + HASH);
  }

  @Test
  void garbageTruncatedAndUnknownVersionsAreRejected() {
    byte[] good = Envelope.found(HASH, 1, new byte[] {1, 2, 3}).encode();
    byte[] otherVersion = good.clone();
    otherVersion[2] = 2;
    byte[] badFlags = good.clone();
    badFlags[3] = 7;
    byte[] notFoundWithPayload = good.clone();
    notFoundWithPayload[3] = 0;
    for (byte[] bad : new byte[][] {
        new byte[0], "hello world, not an envelope".getBytes(StandardCharsets.UTF_8),
        Arrays.copyOf(good, 10), Arrays.copyOf(good, 20), Arrays.copyOf(good, 25),
        otherVersion, badFlags, notFoundWithPayload}) {
      assertThatThrownBy(() -> Envelope.decode(bad, HASH))
          .as(HexFormat.of().formatHex(bad))
          .isInstanceOf(Envelope.EnvelopeException.class);
    }
  }
}
