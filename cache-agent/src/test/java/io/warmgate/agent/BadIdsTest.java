package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Ids at the edges of what the cache accepts, without L2 (BadIdsIT sends them to Redis). Null,
 * empty, ids over the UTF-8 byte limit and odd characters are covered by TieredCacheTest.
 */
class BadIdsTest {

  private final CountingOrigin origin = new CountingOrigin();
  private final TieredCache<String> cache = WarmGate.newBuilder(String.class, origin)
      .cacheName("test").clock(new ManualClock()).meterRegistry(new SimpleMeterRegistry()).build();

  @AfterEach
  void close() {
    cache.close();
  }

  @Test
  void whitespaceOnlyIdsAreDistinctValidIds() {
    origin.put(" ", "space").put("\t", "tab").put("  ", "two spaces");

    assertThat(cache.getAll(List.of(" ", "\t", "  ")))
        .containsExactlyInAnyOrderEntriesOf(Map.of(" ", "space", "\t", "tab", "  ", "two spaces"));
  }

  @Test
  void idOfExactlyTheMaximumLengthIsServed() {
    String longest = "y".repeat(TieredCache.DEFAULT_MAX_ID_BYTES);
    origin.put(longest, "longest");

    assertThat(cache.get(longest)).isEqualTo("longest");
  }

  @Test
  void idOfTheLargestSettableLimitIsServedWhenConfigured() {
    try (TieredCache<String> roomy = WarmGate.newBuilder(String.class, origin).cacheName("test")
        .maxIdBytes(TieredCache.MAX_ID_BYTES_LIMIT).meterRegistry(new SimpleMeterRegistry())
        .build()) {
      String longest = "\u00e9".repeat(TieredCache.MAX_ID_BYTES_LIMIT / 2);
      origin.put(longest, "longest");

      assertThat(roomy.get(longest)).isEqualTo("longest");
      assertThatThrownBy(() -> roomy.get(longest + "y"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is 65537 bytes long in UTF-8 (32769 chars)");
    }
  }

  @Test
  void oneMegabyteIdIsRefusedNamingTheLimitWithoutEchoingIt() {
    String huge = "z".repeat(1 << 20);

    assertThatThrownBy(() -> cache.get(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 1048576 bytes long in UTF-8 (1048576 chars); ids longer than "
            + "512 bytes are refused")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    assertThatThrownBy(() -> cache.getAll(List.of("ok", huge)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(origin.calls()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "lone high surrogate   | \uD800        | \\uD800 at index 0",
      "lone low surrogate    | a\uDC00       | \\uDC00 at index 1",
      "reversed pair         | \uDE80\uD83D  | \\uDE80 at index 0"})
  void regressionIdWithAnUnpairedSurrogateIsRefusedInsteadOfSharingTheKeyOfQuestionMark(
      String name, String id, String where) {
    // UTF-8 encoding turns each lone surrogate into '?', so "\uD800" and "?" had one L2 key.
    origin.put("?", "question mark");

    assertThatThrownBy(() -> cache.get(id))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("id has an unpaired UTF-16 surrogate " + where
            + "; ids must be well-formed Unicode text");
    assertThatThrownBy(() -> cache.getAll(List.of("?", id)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(cache.get("\uD83D\uDE80 rocket")).as("a proper pair is fine").isNull();
    assertThat(origin.calls()).isEqualTo(1);
  }
}
