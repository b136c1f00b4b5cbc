package io.warmgate.spanner;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Fires the gRPC deadlines of every {@link SpannerOrigin}. */
final class Deadlines {

  /** One daemon thread for all origins, so it never keeps a JVM alive. */
  static final ScheduledExecutorService SCHEDULER =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "warmgate-spanner-deadlines");
        t.setDaemon(true);
        return t;
      });

  private Deadlines() {
  }
}
