package io.warmgate.agent;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A pod that wins one id's fill lease and never finishes its origin call, for
 * {@link SlowOriginLeaseIT} to kill: prints {@code loading <id>} once its origin call began.
 * Arguments: the Valkey URI, the lease TTL in ms, the id.
 */
public final class LeaseHolderMain {

  private LeaseHolderMain() {}

  public static void main(String[] args) throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Origin<String> stuck = new Origin<String>() {
      @Override
      public java.util.Map<String, String> loadAll(java.util.Collection<String> ids)
          throws InterruptedException {
        System.out.println("loading " + String.join(",", ids));
        System.out.flush();
        never.await();
        return java.util.Map.of();
      }

      /** As long as the test's waiters may wait. */
      public Duration timeout() {
        return Duration.ofSeconds(60);
      }
    };
    TieredCache<String> cache = WarmGate.newBuilder(String.class, stuck)
        .cacheName("deals")
        .valkeyUri(args[0])
        .podName("holder")
        .lockTtl(Duration.ofMillis(Long.parseLong(args[1])))
        .l2Timeout(Duration.ofSeconds(1))
        .build();
    cache.getAsync(args[2]);
    never.await();
  }
}
