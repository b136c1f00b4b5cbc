package io.warmgate.agent.deal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SpannerDealOriginTest {

  @Test
  void queryIsTheOneValidatedInExamples() throws Exception {
    Path file = Path.of(System.getProperty("user.dir")).resolve("../examples/spanner/deal-query.sql");
    String validated = Files.readAllLines(file).stream()
        .filter(line -> !line.startsWith("--"))
        .collect(Collectors.joining("\n"));
    assertThat(normalize(SpannerDealOrigin.QUERY)).isEqualTo(normalize(validated));
  }

  @Test
  void queryReadsOneBatchWithUnnest() {
    assertThat(SpannerDealOrigin.QUERY).contains("WHERE d.DealId IN UNNEST(@ids)")
        .contains("ARRAY(", "SELECT AS STRUCT", "JOIN Advertisers");
  }

  private static String normalize(String sql) {
    return sql.replaceAll("\\s+", " ").trim();
  }
}
