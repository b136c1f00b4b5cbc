package io.warmgate.example.deal;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Value;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes deterministic example deals into a database holding {@code examples/spanner/schema.sql}.
 *
 * <p>Deal {@code n} (1-based) has id {@link #dealId(int) deal-00000n}, advertiser
 * {@link #advertiserId(int)}, {@link #adCount(int)} rows in {@code DealAds} (1–4) and
 * {@link #targetingCount(int)} rows in {@code DealTargeting} (1–3); every other column is a pure
 * function of {@code n} too, except {@code UpdatedAt} (the commit timestamp). Rows are written with
 * insert-or-update, so seeding again is harmless. Thread-safe (stateless).
 */
public final class DealSeeder {

  /** Advertisers are shared: deal {@code n} belongs to advertiser {@code ((n - 1) % 100) + 1}. */
  public static final int ADVERTISERS = 100;

  private static final int DEALS_PER_COMMIT = 250;
  private static final String[] STATUSES = {"ACTIVE", "ACTIVE", "ACTIVE", "PAUSED", "ENDED"};
  private static final String[] CURRENCIES = {"USD", "EUR", "GBP"};
  private static final int[][] SIZES = {{300, 250}, {728, 90}, {160, 600}, {320, 50}};
  private static final String[] DIMENSIONS = {"geo", "device", "segment"};
  private static final String[] COUNTRIES = {"US", "DE", "GB", "FR", "JP"};
  private static final String[] DEVICES = {"mobile", "desktop", "ctv"};
  private static final Timestamp EPOCH = Timestamp.parseTimestamp("2026-01-01T00:00:00Z");

  private DealSeeder() {
  }

  /**
   * Writes deals {@code 1..count}, their advertisers, ads and targeting, in commits of
   * {@value #DEALS_PER_COMMIT} deals, and returns their ids in order.
   *
   * @throws IllegalArgumentException if {@code count} is negative or above 999,999
   * @throws com.google.cloud.spanner.SpannerException if a commit fails (earlier commits stay)
   */
  public static List<String> seed(DatabaseClient client, int count) {
    if (count < 0 || count > 999_999) {
      throw new IllegalArgumentException("count must be within 0..999999, got " + count);
    }
    List<Mutation> advertisers = new ArrayList<>();
    for (int a = 1; a <= Math.min(count, ADVERTISERS); a++) {
      advertisers.add(Mutation.newInsertOrUpdateBuilder("Advertisers")
          .set("AdvertiserId").to(String.format("adv-%04d", a))
          .set("Name").to("Advertiser " + a)
          .set("Domain").to(a % 10 == 0 ? null : "advertiser-" + a + ".example.com")
          .build());
    }
    if (!advertisers.isEmpty()) {
      client.write(advertisers);
    }
    List<String> ids = new ArrayList<>(count);
    List<Mutation> batch = new ArrayList<>();
    for (int n = 1; n <= count; n++) {
      ids.add(dealId(n));
      addDeal(batch, n);
      if (n % DEALS_PER_COMMIT == 0 || n == count) {
        client.write(batch);
        batch = new ArrayList<>();
      }
    }
    return ids;
  }

  /** Returns the id of deal {@code n}: {@code deal-} and six digits, e.g. {@code deal-000042}. */
  public static String dealId(int n) {
    return String.format("deal-%06d", n);
  }

  /** Returns the advertiser of deal {@code n}, e.g. {@code adv-0042}. */
  public static String advertiserId(int n) {
    return String.format("adv-%04d", (n - 1) % ADVERTISERS + 1);
  }

  /** Returns how many {@code DealAds} rows deal {@code n} has: {@code 1 + (n - 1) % 4}. */
  public static int adCount(int n) {
    return 1 + (n - 1) % 4;
  }

  /** Returns how many {@code DealTargeting} rows deal {@code n} has: {@code 1 + (n - 1) % 3}. */
  public static int targetingCount(int n) {
    return 1 + (n - 1) % 3;
  }

  /** Returns the {@code Status} of deal {@code n}: ACTIVE, PAUSED or ENDED. */
  public static String status(int n) {
    return STATUSES[n % STATUSES.length];
  }

  /** Returns the {@code FloorPriceMicros} of deal {@code n}. */
  public static long floorPriceMicros(int n) {
    return 100_000L + (n % 50) * 10_000L;
  }

  private static void addDeal(List<Mutation> batch, int n) {
    String id = dealId(n);
    boolean open = n % 7 == 0;
    batch.add(Mutation.newInsertOrUpdateBuilder("Deals")
        .set("DealId").to(id)
        .set("AdvertiserId").to(advertiserId(n))
        .set("Name").to("Deal " + n)
        .set("Status").to(status(n))
        .set("FloorPriceMicros").to(floorPriceMicros(n))
        .set("Currency").to(CURRENCIES[n % CURRENCIES.length])
        .set("StartTime").to(Timestamp.ofTimeSecondsAndNanos(EPOCH.getSeconds() + n * 60L, 0))
        .set("EndTime").to(open ? null
            : Timestamp.ofTimeSecondsAndNanos(EPOCH.getSeconds() + n * 60L + 30L * 86_400, 0))
        .set("UpdatedAt").to(Value.COMMIT_TIMESTAMP)
        .build());
    for (int k = 1; k <= adCount(n); k++) {
      int[] size = SIZES[(n + k) % SIZES.length];
      batch.add(Mutation.newInsertOrUpdateBuilder("DealAds")
          .set("DealId").to(id)
          .set("AdId").to(String.format("ad-%06d-%d", n, k))
          .set("CreativeUrl").to("https://cdn.example.com/creatives/" + id + "/" + k + ".png")
          .set("Width").to(size[0])
          .set("Height").to(size[1])
          .set("Weight").to(k * 10L)
          .build());
    }
    for (int k = 0; k < targetingCount(n); k++) {
      String dimension = DIMENSIONS[k];
      String value = switch (dimension) {
        case "geo" -> COUNTRIES[n % COUNTRIES.length];
        case "device" -> DEVICES[n % DEVICES.length];
        default -> "seg-" + (n % 20);
      };
      batch.add(Mutation.newInsertOrUpdateBuilder("DealTargeting")
          .set("DealId").to(id)
          .set("Dimension").to(dimension)
          .set("Value").to(value)
          .set("Exclude").to(dimension.equals("device") && n % 2 == 0)
          .build());
    }
  }

  /**
   * Seeds a database from the command line: {@code DealSeeder <project> <instance> <database>
   * <count>}. Talks to the emulator named by {@code SPANNER_EMULATOR_HOST} when that is set, else
   * to Cloud Spanner with application default credentials. The database must hold
   * {@code examples/spanner/schema.sql}; on an emulator, {@code io.warmgate.testing.EmulatorDatabase}
   * (test-support) creates it.
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !args[3].matches("[0-9]{1,9}")) {
      System.err.println("usage: DealSeeder <project> <instance> <database> <count>"
          + " (set SPANNER_EMULATOR_HOST=host:port for the emulator)");
      System.exit(2);
    }
    String project = args[0];
    String instance = args[1];
    String database = args[2];
    int count = Integer.parseInt(args[3]);
    SpannerOptions.Builder options = SpannerOptions.newBuilder().setProjectId(project);
    String emulator = System.getenv("SPANNER_EMULATOR_HOST");
    if (emulator != null && !emulator.isBlank()) {
      options.setEmulatorHost(emulator).setCredentials(NoCredentials.getInstance());
    }
    try (Spanner spanner = options.build().getService()) {
      long start = System.nanoTime();
      seed(spanner.getDatabaseClient(DatabaseId.of(project, instance, database)), count);
      System.out.printf("seeded %d deals into %s/%s/%s in %d ms%n", count, project, instance, database,
          (System.nanoTime() - start) / 1_000_000);
    }
  }
}
