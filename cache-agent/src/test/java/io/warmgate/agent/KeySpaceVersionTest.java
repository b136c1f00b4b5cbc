package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import io.warmgate.agent.schema.SchemaHash;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How {@link KeySpaceVersion} and the deployment's key space version enter the schema hash. */
class KeySpaceVersionTest {

  static final ObjectMapper SMILE = new ObjectMapper(new SmileFactory());

  /** The hash the agent builds a cache with: the type's annotation read as WarmGate reads it. */
  private static String hash(Class<?> type, String keySpaceVersion) {
    return WarmGate.schemaHash(type, SMILE, keySpaceVersion);
  }

  private static String describe(Class<?> type, String keySpaceVersion) {
    KeySpaceVersion annotated = type.getAnnotation(KeySpaceVersion.class);
    return SchemaHash.describe(type, SMILE, annotated == null ? null : annotated.value(),
        keySpaceVersion);
  }

  record Price(String sku, long cents) {}

  @KeySpaceVersion("2")
  record PriceV2(String sku, long cents) {}

  @KeySpaceVersion("3")
  record PriceV3(String sku, long cents) {}

  @KeySpaceVersion("two words")
  record PriceBadVersion(String sku, long cents) {}

  record Basket(List<PriceV2> prices) {}

  @Test
  void withNeitherTheHashIsTheOneFromBeforeKeySpaceVersionsExisted() {
    // Pinned with the code before key space versions: existing key spaces must not move.
    assertThat(hash(Price.class, null)).isEqualTo("d67a38d24b3d");
    assertThat(SchemaHash.of(Price.class, SMILE)).as("the hash without any version argument")
        .isEqualTo("d67a38d24b3d");
    assertThat(describe(Price.class, null)).doesNotContain("KeySpaceVersion");
  }

  @Test
  void theAnnotationMovesTheTypeToANewKeySpace() {
    assertThat(Set.of(hash(Price.class, null), hash(PriceV2.class, null),
        hash(PriceV3.class, null))).hasSize(3);
    assertThat(describe(PriceV2.class, null)).endsWith(";typeKeySpaceVersion=2");
  }

  @Test
  void theDeploymentsVersionMovesTheTypeToANewKeySpace() {
    String none = hash(Price.class, null);
    String two = hash(Price.class, "2");
    String three = hash(Price.class, "3");
    assertThat(Set.of(none, two, three)).hasSize(3);
    assertThat(hash(Price.class, "2")).as("stable across calls").isEqualTo(two);
    assertThat(describe(Price.class, "2")).endsWith(";keySpaceVersion=2");
  }

  @Test
  void annotationAndDeploymentVersionCountSeparately() {
    String annotated = hash(PriceV2.class, null);
    String deployed = hash(Price.class, "2");
    String both = hash(PriceV2.class, "2");
    assertThat(Set.of(annotated, deployed, both)).hasSize(3);
    assertThat(describe(PriceV2.class, "7"))
        .endsWith(";typeKeySpaceVersion=2;keySpaceVersion=7");
  }

  @Test
  void onlyTheCachedTypesOwnAnnotationCounts() {
    assertThat(describe(Basket.class, null)).doesNotContain("KeySpaceVersion");
  }

  @Test
  void aMalformedAnnotationIsRefusedNamingTypeValueAndFix() {
    assertThatThrownBy(() -> hash(PriceBadVersion.class, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("@KeySpaceVersion(\"two words\") on " + PriceBadVersion.class.getName()
            + " is invalid: expected 1 to 63 letters, digits, '.', '_' or '-', such as 2 or "
            + "2026-03-cents; change the annotation's value");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "two words", "v2;x", "wg:2", "{2}", "ä", "v\n2",
      "a123456789012345678901234567890123456789012345678901234567890123"})
  void malformedVersionsAreRefused(String version) {
    assertThatThrownBy(() -> hash(Price.class, version))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + version + "' is invalid: expected 1 to 63 letters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"2", "v2", "2026-03-cents", "release_7.1", "A.b-C_d",
      "a12345678901234567890123456789012345678901234567890123456789012"})
  void wellFormedVersionsAreAccepted(String version) {
    assertThat(hash(Price.class, version)).matches("[0-9a-f]{12}");
  }
}
