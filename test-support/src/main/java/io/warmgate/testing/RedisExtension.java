package io.warmgate.testing;

import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a {@link RedisServer} for a test class:
 * {@code @RegisterExtension static final RedisExtension redis = new RedisExtension();}.
 *
 * <p>A {@code static} field gives one server per class, an instance field one per test. A test that
 * {@link #stop() stops} the server finds it running again (same port, empty) in the next test.
 */
public final class RedisExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final RedisServer server;
  private final ExtensionLifecycle lifecycle;

  /** Creates an extension whose server accepts any client. */
  public RedisExtension() {
    this(RedisServer.create());
  }

  private RedisExtension(RedisServer server) {
    this.server = server;
    this.lifecycle = new ExtensionLifecycle(server);
  }

  /**
   * Creates an extension whose server requires {@code AUTH password}.
   *
   * @throws IllegalArgumentException if the password is null or blank
   */
  public static RedisExtension withPassword(String password) {
    return new RedisExtension(RedisServer.withPassword(password));
  }

  /** Returns the server this extension runs. */
  public RedisServer server() {
    return server;
  }

  /** See {@link RedisServer#host()}. */
  public String host() {
    return server.host();
  }

  /** See {@link RedisServer#port()}. */
  public int port() {
    return server.port();
  }

  /** See {@link RedisServer#uri()}. */
  public String uri() {
    return server.uri();
  }

  /** See {@link RedisServer#password()}. */
  public Optional<String> password() {
    return server.password();
  }

  /** See {@link RedisServer#flushAll()}. */
  public void flushAll() {
    server.flushAll();
  }

  /** See {@link RedisServer#stop()}. */
  public void stop() {
    server.stop();
  }

  /** See {@link RedisServer#start()}. */
  public void start() {
    server.start();
  }

  /** See {@link RedisServer#isRunning()}. */
  public boolean isRunning() {
    return server.isRunning();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    lifecycle.beforeAll();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    lifecycle.beforeEach();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    lifecycle.afterEach();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    lifecycle.afterAll();
  }
}
