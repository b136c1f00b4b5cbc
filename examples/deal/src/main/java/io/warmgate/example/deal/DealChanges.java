package io.warmgate.example.deal;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import io.warmgate.spanner.changes.ChangeMapper;
import io.warmgate.spanner.changes.ChangeStreamWatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * Which cached {@link Deal}s a row change affects, for a change stream over the tables of the
 * Deal JOIN: a change to a deal's row, or to one of its ads or targeting rules (their keys start
 * with {@code DealId}), affects that deal; a change to an advertiser affects every deal of it,
 * which one indexed read finds. The example of {@link ChangeStreamWatcher.Builder#mapTable}.
 */
public final class DealChanges {

  /** The change stream's name. */
  public static final String STREAM = "DealChanges";
  /** The change stream over the four tables of the Deal JOIN (not in schema.sql: it is optional). */
  public static final String DDL =
      "CREATE CHANGE STREAM " + STREAM + " FOR Deals, Advertisers, DealAds, DealTargeting";

  private DealChanges() {
  }

  /** Maps the four tables of the Deal JOIN on {@code watcher}; {@code database} finds an advertiser's deals. */
  public static ChangeStreamWatcher.Builder mapTables(ChangeStreamWatcher.Builder watcher,
      DatabaseClient database) {
    ChangeMapper byDeal = ChangeMapper.keyColumn("DealId");
    return watcher
        .mapTable("Deals", byDeal)
        .mapTable("DealAds", byDeal)
        .mapTable("DealTargeting", byDeal)
        .mapTable("Advertisers", change -> dealsOf(database, change.key("AdvertiserId")));
  }

  /** The ids of the deals of {@code advertiserId}. */
  public static List<String> dealsOf(DatabaseClient database, String advertiserId) {
    List<String> ids = new ArrayList<>();
    try (ResultSet rows = database.singleUse().executeQuery(Statement.newBuilder(
        "SELECT DealId FROM Deals WHERE AdvertiserId = @advertiser")
        .bind("advertiser").to(advertiserId).build())) {
      while (rows.next()) {
        ids.add(rows.getString(0));
      }
    }
    return ids;
  }
}
