package io.warmgate.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import io.warmgate.testing.CountingReads;
import io.warmgate.testing.SpannerEmulatorExtension;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The generic origin against the real Spanner emulator, on a table of every common column type. */
class SpannerOriginIT {

  @RegisterExtension
  static final SpannerEmulatorExtension spanner = new SpannerEmulatorExtension();

  private static final AtomicInteger reads = new AtomicInteger();
  private static DatabaseClient counting;

  /** Every column of {@code Items}, bound by Jackson; property names differ in case only. */
  record Item(String itemId, String name, long priceMicros, BigDecimal price, Double rating,
      boolean available, List<String> tags, JsonNode attributes, LocalDate launched,
      Instant updatedAt, byte[] thumbnail) {}

  record TagInfo(String tag, long length) {}

  record Tagged(String id, List<TagInfo> tagInfo) {}

  @BeforeAll
  static void seed() {
    Items.create(spanner);
    Items.seed(spanner.databaseClient(), 40);
    counting = CountingReads.counting(spanner.databaseClient(), reads);
  }

  private static SpannerOrigin.Builder items() {
    return SpannerOrigin.builder(spanner.databaseClient()).query(Items.QUERY).idColumn("ItemId");
  }

  @Test
  void mapRowsReadsABatchWithOneQuery() {
    List<String> ids = new ArrayList<>();
    for (int n = 1; n <= 14; n++) {
      ids.add(Items.id(n));
    }
    ids.add("item-999999");
    SpannerOrigin<Items.Summary> origin = Items.summaries(counting, Duration.ofSeconds(5));
    reads.set(0);

    Map<String, Items.Summary> items = origin.loadAll(ids);

    assertThat(reads).as("one query for the whole batch").hasValue(1);
    assertThat(items).hasSize(14).doesNotContainKey("item-999999");
    for (int n = 1; n <= 14; n++) {
      assertThat(items.get(Items.id(n)))
          .isEqualTo(new Items.Summary(Items.id(n), Items.name(n), Items.priceMicros(n)));
    }
  }

  @Test
  void mapColumnsBindsEveryColumnTypeByNameIgnoringCase() {
    SpannerOrigin<Item> origin = items().mapColumns(Item.class);

    Map<String, Item> items = origin.loadAll(List.of(Items.id(3), Items.id(4), Items.id(5), "nope"));

    assertThat(items).containsOnlyKeys(Items.id(3), Items.id(4), Items.id(5));
    Item four = items.get(Items.id(4));
    assertThat(four.itemId()).isEqualTo("item-000004");
    assertThat(four.name()).isEqualTo("Item 4");
    assertThat(four.priceMicros()).isEqualTo(40_000L);
    assertThat(four.price()).isEqualByComparingTo("4.25");
    assertThat(four.rating()).as("NULL FLOAT64").isNull();
    assertThat(four.available()).isTrue();
    assertThat(four.tags()).containsExactly("all", "t1");
    assertThat(four.attributes().get("color").asText()).isEqualTo("c1");
    assertThat(four.attributes().get("sizes")).hasSize(2);
    assertThat(four.launched()).isEqualTo(LocalDate.of(2026, 1, 5));
    assertThat(four.updatedAt()).isEqualTo(Instant.parse("2026-01-01T00:00:04.123456Z"));
    assertThat(four.thumbnail()).containsExactly(4, 0, 255);
    assertThat(items.get(Items.id(3)).price()).as("NULL NUMERIC").isNull();
    assertThat(items.get(Items.id(3)).rating()).isEqualTo(3.5);
    assertThat(items.get(Items.id(5)).tags()).as("NULL ARRAY").isNull();
  }

  @Test
  void mapColumnsBindsAliasesAndArraysOfStructs() {
    SpannerOrigin<Tagged> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("""
            SELECT i.ItemId AS id,
                   ARRAY(SELECT AS STRUCT t AS tag, CHAR_LENGTH(t) AS length
                         FROM UNNEST(i.Tags) AS t ORDER BY t) AS tagInfo
            FROM Items AS i WHERE i.ItemId IN UNNEST(@ids)""")
        .idColumn("id")
        .mapColumns(Tagged.class);

    Map<String, Tagged> tagged = origin.loadAll(List.of(Items.id(2)));

    assertThat(tagged.get(Items.id(2)).tagInfo())
        .containsExactly(new TagInfo("all", 3), new TagInfo("t2", 2));
  }

  @Test
  void mapRowGroupsAssemblesOneValueFromSeveralRows() {
    SpannerOrigin<List<String>> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("""
            SELECT i.ItemId, tag FROM Items AS i CROSS JOIN UNNEST(i.Tags) AS tag
            WHERE i.ItemId IN UNNEST(@ids) ORDER BY i.ItemId, tag""")
        .idColumn("ItemId")
        .mapRowGroups(rows -> rows.stream().map(r -> r.getString("tag")).toList());

    Map<String, List<String>> tags = origin.loadAll(List.of(Items.id(1), Items.id(5), Items.id(7)));

    assertThat(tags).as("item 5 has no tags, so no rows").containsOnlyKeys(Items.id(1), Items.id(7));
    assertThat(tags.get(Items.id(1))).containsExactly("all", "t1");
    assertThat(tags.get(Items.id(7))).containsExactly("all", "t1");
  }

  @Test
  void idsAreBoundNotInterpolated() {
    assertThat(items().mapColumns(Item.class)
        .loadAll(List.of("x' OR '1'='1", "ünï", "item-000001\")", Items.id(1))))
        .containsOnlyKeys(Items.id(1));
  }

  @Test
  void theIdsParameterCanBeRenamed() {
    SpannerOrigin<String> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT ItemId, Name FROM Items WHERE ItemId IN UNNEST(@itemIds)")
        .idsParameter("itemIds")
        .idColumn("itemid")
        .mapRows(row -> row.getString("Name"));

    assertThat(origin.loadAll(List.of(Items.id(9)))).containsExactly(Map.entry(Items.id(9), "Item 9"));
  }

  @Test
  void aQueryWithoutTheIdsParameterIsRefusedWithTheFix() {
    assertThatThrownBy(() -> SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT ItemId, Name FROM Items WHERE ItemId = @id").idColumn("ItemId")
        .mapRows(row -> row.getString("Name")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("query has no @ids parameter")
        .hasMessageContaining("WHERE T.Id IN UNNEST(@ids)")
        .hasMessageContaining("idsParameter(")
        .hasMessageContaining("Query: SELECT ItemId, Name FROM Items WHERE ItemId = @id");
  }

  @Test
  void missingSettingsAreRefusedWithTheFix() {
    assertThatThrownBy(() -> SpannerOrigin.builder(spanner.databaseClient()).idColumn("ItemId")
        .mapColumns(Item.class))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("query is not set");
    assertThatThrownBy(() -> SpannerOrigin.builder(spanner.databaseClient()).query(Items.QUERY)
        .mapColumns(Item.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("idColumn is not set").hasMessageContaining("idColumn(\"ProductId\")");
    assertThatThrownBy(() -> items().timeout(Duration.ZERO).mapColumns(Item.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("timeout must be positive, got PT0S");
    assertThatThrownBy(() -> items().idsParameter("@ids").mapColumns(Item.class))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("idsParameter '@ids' is not a query parameter name")
        .hasMessageContaining("without the '@'");
  }

  @Test
  void anIdColumnTheQueryDoesNotReturnNamesTheColumnsItDoes() {
    SpannerOrigin<String> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT ItemId AS Id, Name FROM Items WHERE ItemId IN UNNEST(@ids)")
        .idColumn("ItemId")
        .mapRows(row -> row.getString("Name"));

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the query returns no column 'ItemId' (idColumn)")
        .hasMessageContaining("[Id, Name]");
  }

  @Test
  void aNonStringIdColumnSaysHowToCastIt() {
    SpannerOrigin<String> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT PriceMicros, Name FROM Items WHERE ItemId IN UNNEST(@ids)")
        .idColumn("PriceMicros")
        .mapRows(row -> row.getString("Name"));

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("id column 'PriceMicros' is INT64, not STRING")
        .hasMessageContaining("CAST(PriceMicros AS STRING) AS PriceMicros");
  }

  @Test
  void severalRowsForOneIdWithMapRowsPointToMapRowGroups() {
    SpannerOrigin<String> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT i.ItemId, tag FROM Items AS i CROSS JOIN UNNEST(i.Tags) AS tag "
            + "WHERE i.ItemId IN UNNEST(@ids)")
        .idColumn("ItemId")
        .mapRows(row -> row.getString("tag"));

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("more than one row for id 'item-000001'")
        .hasMessageContaining("mapRowGroups(...)");
  }

  @Test
  void aNullIdIsAnError() {
    SpannerOrigin<String> origin = SpannerOrigin.builder(spanner.databaseClient())
        .query("SELECT CAST(NULL AS STRING) AS ItemId, Name FROM Items WHERE ItemId IN UNNEST(@ids)")
        .idColumn("ItemId")
        .mapRows(row -> row.getString("Name"));

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a row has NULL in the id column 'ItemId'");
  }

  @Test
  void aColumnTheTypeLacksNamesColumnsTypeAndFix() {
    SpannerOrigin<Items.Summary> origin = items().mapColumns(Items.Summary.class);

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot bind the columns [ItemId, Name, PriceMicros, Price,")
        .hasMessageContaining(Items.Summary.class.getName())
        .hasMessageContaining("Price")
        .hasMessageContaining("select only what the type holds");
  }

  @Test
  void mapperExceptionsFailTheBatch() {
    SpannerOrigin<String> origin = items().mapRows(row -> {
      throw new IllegalArgumentException("bad row " + row.getString("ItemId"));
    });

    assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("bad row item-000001");
  }

  @Test
  void aStuckSpannerFailsWithinTheTimeout() {
    SpannerOrigin<Items.Summary> origin = Items.summaries(spanner.databaseClient(),
        Duration.ofMillis(500));
    origin.loadAll(List.of(Items.id(1))); // sessions ready
    spanner.freeze();
    try {
      long start = System.nanoTime();
      assertThatThrownBy(() -> origin.loadAll(List.of(Items.id(1))))
          .isInstanceOfSatisfying(SpannerException.class,
              e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
    } finally {
      spanner.thaw();
    }
    assertThat(origin.loadAll(List.of(Items.id(1)))).containsOnlyKeys(Items.id(1));
  }

  @Test
  void describesItself() {
    assertThat(items().timeout(Duration.ofSeconds(2)).mapRows(row -> row.getString("ItemId")))
        .hasToString("SpannerOrigin[idColumn=ItemId, @ids, timeout=PT2S]");
  }
}
