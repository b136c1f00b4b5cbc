package io.warmgate.testing;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs registered clean-up actions when the JVM exits, so that no process outlives the test run
 * even when {@code afterAll} never runs (a crash, Ctrl-C, a surefire fork timeout).
 *
 * <p>Actions run newest first, each at most once; a failing action does not stop the others.
 */
final class Cleanup {

  private static final Set<Registration> PENDING = new LinkedHashSet<>();
  private static boolean hookInstalled;

  private Cleanup() {
  }

  /** A registered action; closing it forgets the action without running it. Idempotent. */
  static final class Registration implements AutoCloseable {
    private final String what;
    private final Runnable action;

    private Registration(String what, Runnable action) {
      this.what = what;
      this.action = action;
    }

    @Override
    public void close() {
      synchronized (Cleanup.class) {
        PENDING.remove(this);
      }
    }

    @Override
    public String toString() {
      return what;
    }
  }

  /** Registers {@code action} to run at JVM exit unless the returned registration is closed first. */
  static synchronized Registration atExit(String what, Runnable action) {
    if (!hookInstalled) {
      Runtime.getRuntime().addShutdownHook(new Thread(Cleanup::runAll, "warmgate-test-cleanup"));
      hookInstalled = true;
    }
    Registration registration = new Registration(what, action);
    PENDING.add(registration);
    return registration;
  }

  private static void runAll() {
    List<Registration> registrations;
    synchronized (Cleanup.class) {
      registrations = new ArrayList<>(PENDING);
      PENDING.clear();
    }
    for (int i = registrations.size() - 1; i >= 0; i--) {
      try {
        registrations.get(i).action.run();
      } catch (RuntimeException e) {
        System.err.println("clean-up of " + registrations.get(i) + " failed at JVM exit: " + e);
      }
    }
  }
}
