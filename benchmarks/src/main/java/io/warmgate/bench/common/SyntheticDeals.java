package io.warmgate.bench.common;

import io.warmgate.agent.Origin;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealAd;
import io.warmgate.example.deal.DealStatus;
import io.warmgate.example.deal.DealTargeting;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Deals of a realistic size (3 ads, 3 targeting rules) made in memory, for benchmarks of the tiers. */
public final class SyntheticDeals {

  private SyntheticDeals() {}

  public static String id(int n) {
    return String.format("deal-%06d", n);
  }

  public static String[] ids(int count) {
    String[] ids = new String[count];
    for (int i = 0; i < count; i++) {
      ids[i] = id(i + 1);
    }
    return ids;
  }

  public static Deal deal(String id) {
    return new Deal(id, "adv-042", "Advertiser 42", "adv42.example", "Deal " + id, DealStatus.ACTIVE,
        1_250_000L, "USD", Instant.parse("2026-01-01T00:00:00Z"), null, Instant.parse("2026-06-01T12:00:00Z"),
        List.of(new DealAd(id + "-ad-1", "https://cdn.example/" + id + "/1.png", 300, 250, 5),
            new DealAd(id + "-ad-2", "https://cdn.example/" + id + "/2.png", 728, 90, 3),
            new DealAd(id + "-ad-3", "https://cdn.example/" + id + "/3.png", 160, 600, 2)),
        List.of(new DealTargeting("country", "DE", false),
            new DealTargeting("device", "mobile", false),
            new DealTargeting("segment", "sports", true)));
  }

  /** An origin that builds every requested deal: it never touches a database. */
  public static Origin<Deal> origin() {
    return (Collection<String> ids) -> {
      Map<String, Deal> out = new HashMap<>();
      ids.forEach(id -> out.put(id, deal(id)));
      return out;
    };
  }
}
