package io.warmgate.bench.freshness;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Mutation;
import io.warmgate.bench.common.ZipfIds;
import io.warmgate.example.deal.Deal;
import io.warmgate.example.deal.DealChanges;
import io.warmgate.example.deal.DealSeeder;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Commits changes to the tables of the Deal JOIN, as a deal's owners make them: seven in ten set a
 * deal's floor price, two in ten an ad's weight, one in ten renames the deal's advertiser (which
 * changes every deal of it). Which deal changes follows the lookups' Zipf popularity.
 */
final class Changes {

  /** One committed change: what it touched, when, and how a pod's value shows it. */
  record Change(int seq, String kind, String probedId, List<String> changedIds, Instant committed,
      Predicate<Deal> served) {}

  private final DatabaseClient db;
  private final ZipfIds popularity;
  private final Random random;

  Changes(DatabaseClient db, FreshnessParams params) {
    this.db = db;
    this.popularity = new ZipfIds(params.deals(), params.skew(), params.seed());
    this.random = new Random(params.seed() + 1);
  }

  /**
   * Commits change {@code seq} to a deal none of whose {@code busy} keys (deal ids, and advertiser
   * ids of renames) is still being watched, and returns it with its commit time.
   */
  Change commit(int seq, Set<String> busy) {
    String id;
    do {
      id = popularity.next(random);
    } while (busy.contains(id));
    int n = Integer.parseInt(id.substring("deal-".length()));
    int kind = seq % 10;
    if (kind == 9 && !busy.contains(DealSeeder.advertiserId(n))) {
      String advertiser = DealSeeder.advertiserId(n);
      String name = "Advertiser " + n + " rev " + seq;
      Timestamp at = db.write(List.of(Mutation.newUpdateBuilder("Advertisers")
          .set("AdvertiserId").to(advertiser).set("Name").to(name).build()));
      return new Change(seq, "advertiser renamed", id, DealChanges.dealsOf(db, advertiser),
          instant(at), d -> d != null && d.advertiserName().equals(name));
    }
    long marker = 900_000_000L + seq;
    if (kind >= 7) {
      String ad = String.format("ad-%06d-%d", n, 1);
      Timestamp at = db.write(List.of(Mutation.newUpdateBuilder("DealAds").set("DealId").to(id)
          .set("AdId").to(ad).set("Weight").to(marker).build()));
      return new Change(seq, "ad weight", id, List.of(id), instant(at),
          d -> d != null && d.ads().stream().anyMatch(a -> a.weight() == marker));
    }
    Timestamp at = db.write(List.of(Mutation.newUpdateBuilder("Deals").set("DealId").to(id)
        .set("FloorPriceMicros").to(marker).build()));
    return new Change(seq, "deal floor price", id, List.of(id), instant(at),
        d -> d != null && d.floorPriceMicros() == marker);
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
