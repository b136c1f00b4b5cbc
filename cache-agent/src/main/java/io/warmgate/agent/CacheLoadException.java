package io.warmgate.agent;

/**
 * Thrown (or completes a future exceptionally) when an id could not be loaded: its origin failed,
 * or was not called because its circuit breaker is open, and no stale value young enough to serve
 * instead was held. The cause is the origin's exception (with an open breaker: its latest one).
 * Failures of the L2 tier never surface as this exception; they only make the cache fall back to
 * the origin.
 */
public final class CacheLoadException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String id;

  /**
   * Creates an exception for {@code id}.
   *
   * @param cacheName the cache that was asked
   * @param id the id that could not be loaded
   * @param detail what was tried, appended to the message
   * @param cause the origin's exception
   */
  public CacheLoadException(String cacheName, String id, String detail, Throwable cause) {
    super("cache '" + cacheName + "' could not load id '" + abbreviate(id) + "' from its origin: "
        + cause + "; " + detail, cause);
    this.id = id;
  }

  /** Returns the id that could not be loaded. */
  public String id() {
    return id;
  }

  private static String abbreviate(String id) {
    return id.length() <= 200 ? id : id.substring(0, 200) + "...(" + id.length() + " chars)";
  }
}
