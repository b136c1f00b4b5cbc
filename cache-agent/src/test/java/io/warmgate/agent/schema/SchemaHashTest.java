package io.warmgate.agent.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.warmgate.agent.deal.Deal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Golden tests: what must change the schema hash, and what must not. */
class SchemaHashTest {

  static final ObjectMapper SMILE = new ObjectMapper(new SmileFactory()).registerModule(new JavaTimeModule());

  enum Color { RED, GREEN }

  enum ColorPlus { RED, GREEN, BLUE }

  enum ColorReordered { GREEN, RED }

  record Item(String sku, long price) {}

  record ItemRetyped(String sku, int price) {}

  record Base(String id, int count, Color color, List<Item> items) {}

  record Reordered(List<Item> items, Color color, int count, String id) {}

  record Renamed(String id, int amount, Color color, List<Item> items) {}

  record Retyped(String id, long count, Color color, List<Item> items) {}

  record Boxed(String id, Integer count, Color color, List<Item> items) {}

  record Added(String id, int count, Color color, List<Item> items, String note) {}

  record Removed(String id, Color color, List<Item> items) {}

  record EnumConstantAdded(String id, int count, ColorPlus color, List<Item> items) {}

  record EnumReordered(String id, int count, ColorReordered color, List<Item> items) {}

  record NestedFieldRetyped(String id, int count, Color color, List<ItemRetyped> items) {}

  record CollectionRetyped(String id, int count, Color color, Set<Item> items) {}

  record MapElementTypes(String id, int count, Color color, Map<String, Item> items) {}

  record PropertyRenamedByAnnotation(@JsonProperty("ident") String id, int count, Color color,
      List<Item> items) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record InclusionChanged(String id, int count, Color color, List<Item> items) {}

  @JsonPropertyOrder({"items", "id"})
  record OrderAnnotated(String id, int count, Color color, List<Item> items) {}

  record WithIgnored(String id, int count, Color color, List<Item> items, @JsonIgnore String secret) {}

  /** A POJO with fields in another order than Base's record components: same JSON shape. */
  static final class BasePojo {
    public List<Item> items;
    public String id;
    public Color color;
    public int count;
  }

  record Tree(String name, List<Tree> children) {}

  record ReferenceField(String id, AtomicReference<String> note) {}

  private static String hash(Class<?> type) {
    return SchemaHash.of(type, SMILE);
  }

  @Test
  void goldenHashesArePinned() {
    // Changing these means every deployed agent starts a new key space: only on purpose, with a
    // CODEC_VERSION bump or a change of the description format.
    assertThat(hash(Base.class)).isEqualTo("2d3228b00382");
    assertThat(SchemaHash.of(Deal.class, SMILE)).isEqualTo("111b29e45eef");
  }

  @Test
  void hashIsTwelveLowercaseHexChars() {
    assertThat(hash(Base.class)).matches("[0-9a-f]{12}");
  }

  @Test
  void reorderingFieldsKeepsTheHash() {
    assertThat(hash(Reordered.class)).isEqualTo(hash(Base.class));
    assertThat(hash(BasePojo.class)).isEqualTo(hash(Base.class));
    assertThat(hash(EnumReordered.class)).isEqualTo(hash(Base.class));
    assertThat(hash(OrderAnnotated.class)).isEqualTo(hash(Base.class));
  }

  @Test
  void ignoredPropertiesDoNotCount() {
    assertThat(hash(WithIgnored.class)).isEqualTo(hash(Base.class));
  }

  @Test
  void renamingAFieldChangesTheHash() {
    assertThat(hash(Renamed.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(PropertyRenamedByAnnotation.class)).isNotEqualTo(hash(Base.class));
  }

  @Test
  void retypingAFieldChangesTheHash() {
    assertThat(hash(Retyped.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(Boxed.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(NestedFieldRetyped.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(CollectionRetyped.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(MapElementTypes.class)).isNotEqualTo(hash(Base.class));
  }

  @Test
  void addingOrRemovingAFieldChangesTheHash() {
    assertThat(hash(Added.class)).isNotEqualTo(hash(Base.class));
    assertThat(hash(Removed.class)).isNotEqualTo(hash(Base.class));
  }

  @Test
  void addingAnEnumConstantChangesTheHash() {
    assertThat(hash(EnumConstantAdded.class)).isNotEqualTo(hash(Base.class));
  }

  @Test
  void serializationAnnotationsChangeTheHash() {
    assertThat(hash(InclusionChanged.class)).isNotEqualTo(hash(Base.class));
  }

  @Test
  void dataFormatChangesTheHash() {
    assertThat(SchemaHash.of(Base.class, new ObjectMapper())).isNotEqualTo(hash(Base.class));
  }

  @Test
  void recursiveAndGenericTypesAreDescribed() {
    assertThat(SchemaHash.describe(Tree.class, SMILE))
        .contains("children:java.util.List<ref(" + Tree.class.getName() + ")>");
    assertThat(SchemaHash.describe(ReferenceField.class, SMILE))
        .contains("note:java.util.concurrent.atomic.AtomicReference<java.lang.String>");
  }

  @Test
  void descriptionIsReadable() {
    assertThat(SchemaHash.describe(Base.class, SMILE)).isEqualTo(
        "warmgate-codec/1;format=Smile;type={color:enum(\"GREEN\",\"RED\"),count:int,id:java.lang.String,"
            + "items:java.util.List<{price:long,sku:java.lang.String}>}");
  }
}
