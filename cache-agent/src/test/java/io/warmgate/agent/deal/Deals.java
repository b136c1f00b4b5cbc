package io.warmgate.agent.deal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Typical deals for tests: the shape the example seeder writes. */
public final class Deals {

  private Deals() {}

  /** A deal with {@code ads} ad candidates and {@code rules} targeting rules. */
  public static Deal deal(String id, int ads, int rules) {
    List<DealAd> adList = new ArrayList<>();
    for (int k = 1; k <= ads; k++) {
      adList.add(new DealAd("ad-000042-" + k, "https://cdn.example.com/creatives/" + id + "/" + k + ".png",
          300, 250, k * 10L));
    }
    String[] dimensions = {"device", "geo", "segment"};
    String[] values = {"mobile", "US", "seg-2"};
    List<DealTargeting> targeting = new ArrayList<>();
    for (int k = 0; k < rules; k++) {
      targeting.add(new DealTargeting(dimensions[k], values[k], k == 0));
    }
    return new Deal(id, "adv-0042", "Advertiser 42", "advertiser-42.example.com", "Deal 42",
        DealStatus.ACTIVE, 520_000L, "USD", Instant.parse("2026-01-01T00:42:00Z"),
        Instant.parse("2026-01-31T00:42:00Z"), Instant.parse("2026-02-27T10:15:30.123456Z"),
        adList, targeting);
  }
}
