package io.warmgate.gateway.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Adapts the shared response to one user (filtering, re-ranking, localising) after coalescing, so
 * per-user variables never split the upstream call. Called on an event loop for every chunk sent
 * to a client: must be fast and must not block. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface PerUserHook {

  /** Sends every chunk unchanged. */
  PerUserHook IDENTITY = (template, perUser, event, data) -> data;

  /**
   * Returns the data to send for one chunk, or null to drop the chunk for this user.
   *
   * @param perUser the request's {@code perUser} object, an empty object when absent
   * @param event the chunk's SSE event name, empty for {@code message}
   */
  String apply(String template, JsonNode perUser, String event, String data);
}
