package io.warmgate.bench.release;

import io.warmgate.bench.common.ZipfIds;
import java.time.Duration;
import java.util.List;

/**
 * Before the first release, a fleet of the old version serves the traffic long enough for the
 * agents to learn the hot set, which Valkey keeps across releases; its origin traffic over the last
 * L2 TTL is the steady load the modelled origin is sized from.
 */
final class Learning {

  /** What the report says of this phase; its one argument is the half-lives. */
  static final String DESCRIPTION = "Before the first release an old-version fleet learned the hot "
      + "set from its own traffic for %.1f half-lives; each release's old fleet then starts with "
      + "empty caches and serves 2 L2 TTLs before its release.";

  /** The old fleet's origin traffic once its caches are warm. */
  record Steady(double queriesPerSecond, double rowsPerSecond) {}

  private Learning() {}

  static Steady learn(ReleaseEnv env, ReleaseParams p, Duration duration, Duration l2Ttl)
      throws InterruptedException {
    env.resetKeys();
    if (env.modelled() != null) {
      env.modelled().ample();
    }
    ZipfIds ids = new ZipfIds(p.deals(), p.skew(), p.seed());
    try (Fleet fleet = new Fleet(env)) {
      for (int i = 0; i < p.agents(); i++) {
        fleet.start(ReleasePod.Version.OLD);
      }
      try (Traffic traffic = new Traffic(ids, p.idsPerRequest(), p.rate(), fleet, p.seed() - 1)) {
        Thread.sleep(duration.toMillis());
        long end = System.currentTimeMillis();
        long from = end - l2Ttl.toMillis();
        List<OriginLog.Read> reads = env.origins().between(from, end);
        double seconds = l2Ttl.toMillis() / 1000.0;
        return new Steady(reads.size() / seconds,
            reads.stream().mapToLong(r -> r.ids().size()).sum() / seconds);
      }
    }
  }
}
