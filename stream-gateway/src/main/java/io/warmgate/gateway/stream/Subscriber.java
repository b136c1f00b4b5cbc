package io.warmgate.gateway.stream;

import java.util.List;

/**
 * A client of one coalescing key, fed by its pod's {@link FanoutHub}.
 *
 * <p>The hub calls these methods in stream order, never concurrently for one subscriber, and
 * must not be blocked: an implementation hands the entries to its own thread or event loop. Entries
 * may include ones the subscriber already has (it filters by its own last id); after a terminal
 * entry or {@link #fail(String)} nothing more is delivered.
 */
public interface Subscriber {

  /**
   * New entries of the stream.
   *
   * @param run the run the entries belong to: a later run of the same key is another response
   * @param backfill true for the entries that were already in the stream when the subscriber joined
   */
  void deliver(String run, List<StreamEntry> entries, boolean backfill);

  /** The stream cannot be read any more (Valkey down, the run vanished); {@code message} says why. */
  void fail(String message);
}
