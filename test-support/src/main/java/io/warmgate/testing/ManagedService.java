package io.warmgate.testing;

/** A real server started for tests: what {@link ExtensionLifecycle} needs to drive it. */
interface ManagedService extends AutoCloseable {

  /** Starts the server, or does nothing if it is running. */
  void start();

  /** Returns whether the server process is alive. */
  boolean isRunning();

  /** Stops the server and releases what it holds. Idempotent. */
  @Override
  void close();
}
