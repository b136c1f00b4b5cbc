package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SpannerEmulatorTest {

  @Test
  void splitsDdlIntoStatementsWithoutComments() {
    String sql = "-- header; with a semicolon\nCREATE TABLE A (\n  Id INT64, -- id\n) PRIMARY KEY (Id);\n\n"
        + "CREATE TABLE B (Id INT64) PRIMARY KEY (Id);\n";

    assertThat(SpannerEmulator.splitStatements(sql)).containsExactly(
        "CREATE TABLE A (\n  Id INT64, \n) PRIMARY KEY (Id)",
        "CREATE TABLE B (Id INT64) PRIMARY KEY (Id)");
  }

  @Test
  void readsTheExampleSchema() {
    assertThat(SpannerEmulator.schemaStatements()).hasSize(4)
        .allSatisfy(statement -> assertThat(statement).startsWith("CREATE TABLE"));
  }

  @Test
  void refusesInvalidDatabaseIds() {
    assertThatThrownBy(() -> SpannerEmulator.withDatabase("Deals"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Deals'");
  }
}
