package io.warmgate.agent.deal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SpannerDealOriginTest {

  @Test
  void queryIsTheOneValidatedInExamples() throws Exception {
    Path file = Path.of(System.getProperty("user.dir")).resolve("../examples/spanner/deal-query.sql");
    assertThat(SpannerDealOrigin.QUERY).isEqualTo(Files.readString(file));
  }

  @Test
  void queryReadsOneBatchWithUnnest() {
    assertThat(SpannerDealOrigin.QUERY).contains("WHERE d.DealId IN UNNEST(@ids)")
        .contains("JOIN Advertisers", "LEFT JOIN DealAds", "LEFT JOIN DealTargeting");
  }
}
