package io.warmgate.agent.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How {@link KeySpaceVersion} and the deployment's key space version enter the schema hash. */
class KeySpaceVersionTest {

  static final ObjectMapper SMILE = new ObjectMapper(new SmileFactory());

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
    assertThat(SchemaHash.of(Price.class, SMILE)).isEqualTo("d67a38d24b3d");
    assertThat(SchemaHash.of(Price.class, SMILE, null)).isEqualTo("d67a38d24b3d");
    assertThat(SchemaHash.describe(Price.class, SMILE)).doesNotContain("KeySpaceVersion");
  }

  @Test
  void theAnnotationMovesTheTypeToANewKeySpace() {
    assertThat(Set.of(SchemaHash.of(Price.class, SMILE), SchemaHash.of(PriceV2.class, SMILE),
        SchemaHash.of(PriceV3.class, SMILE))).hasSize(3);
    assertThat(SchemaHash.describe(PriceV2.class, SMILE)).endsWith(";typeKeySpaceVersion=2");
  }

  @Test
  void theDeploymentsVersionMovesTheTypeToANewKeySpace() {
    String none = SchemaHash.of(Price.class, SMILE);
    String two = SchemaHash.of(Price.class, SMILE, "2");
    String three = SchemaHash.of(Price.class, SMILE, "3");
    assertThat(Set.of(none, two, three)).hasSize(3);
    assertThat(SchemaHash.of(Price.class, SMILE, "2")).as("stable across calls").isEqualTo(two);
    assertThat(SchemaHash.describe(Price.class, SMILE, "2")).endsWith(";keySpaceVersion=2");
  }

  @Test
  void annotationAndDeploymentVersionCountSeparately() {
    String annotated = SchemaHash.of(PriceV2.class, SMILE);
    String deployed = SchemaHash.of(Price.class, SMILE, "2");
    String both = SchemaHash.of(PriceV2.class, SMILE, "2");
    assertThat(Set.of(annotated, deployed, both)).hasSize(3);
    assertThat(SchemaHash.describe(PriceV2.class, SMILE, "7"))
        .endsWith(";typeKeySpaceVersion=2;keySpaceVersion=7");
  }

  @Test
  void onlyTheCachedTypesOwnAnnotationCounts() {
    assertThat(SchemaHash.describe(Basket.class, SMILE)).doesNotContain("KeySpaceVersion");
  }

  @Test
  void aMalformedAnnotationIsRefusedNamingTypeValueAndFix() {
    assertThatThrownBy(() -> SchemaHash.of(PriceBadVersion.class, SMILE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("@KeySpaceVersion(\"two words\") on " + PriceBadVersion.class.getName()
            + " is invalid: expected 1 to 63 letters, digits, '.', '_' or '-', such as 2 or "
            + "2026-03-cents; change the annotation's value");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "two words", "v2;x", "wg:2", "{2}", "ä", "v\n2",
      "a123456789012345678901234567890123456789012345678901234567890123"})
  void malformedVersionsAreRefused(String version) {
    assertThatThrownBy(() -> SchemaHash.of(Price.class, SMILE, version))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + version + "' is invalid: expected 1 to 63 letters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"2", "v2", "2026-03-cents", "release_7.1", "A.b-C_d",
      "a12345678901234567890123456789012345678901234567890123456789012"})
  void wellFormedVersionsAreAccepted(String version) {
    assertThat(SchemaHash.of(Price.class, SMILE, version)).matches("[0-9a-f]{12}");
  }
}
