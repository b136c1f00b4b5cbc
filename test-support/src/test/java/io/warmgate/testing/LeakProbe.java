package io.warmgate.testing;

/**
 * A JVM that starts a Redis server and a Spanner emulator, prints their pids and waits to be
 * terminated without ever closing them; {@link ProcessCleanupIT} checks that its exit kills both.
 */
public final class LeakProbe {

  private LeakProbe() {
  }

  public static void main(String[] args) throws InterruptedException {
    RedisServer.create().start();
    SpannerEmulator.create().start();
    ProcessHandle.current().children().forEach(child -> System.out.println("child " + child.pid()));
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
