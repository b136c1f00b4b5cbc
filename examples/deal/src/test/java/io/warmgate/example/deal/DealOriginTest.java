package io.warmgate.example.deal;

import static org.assertj.core.api.Assertions.assertThat;

import io.warmgate.testing.WarmgatePaths;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class DealOriginTest {

  @Test
  void queryIsTheOneValidatedInExamples() throws Exception {
    assertThat(DealOrigin.QUERY).isEqualTo(
        Files.readString(WarmgatePaths.repoDir().resolve("examples/spanner/deal-query.sql")));
  }

  @Test
  void queryReadsOneBatchWithUnnest() {
    assertThat(DealOrigin.QUERY).contains("FROM UNNEST(@ids) AS id")
        .contains("JOIN Advertisers", "LEFT JOIN DealAds", "LEFT JOIN DealTargeting");
  }
}
