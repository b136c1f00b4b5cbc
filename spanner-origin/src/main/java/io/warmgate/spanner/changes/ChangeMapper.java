package io.warmgate.spanner.changes;

import java.util.Collection;
import java.util.List;

/**
 * Turns a row change into the ids of the cached values it affects: a change to a Deal's row, or
 * to one of its ads or targeting rules, affects that deal. It may read the database (a change to
 * an advertiser affects every deal of it); it runs in the watcher's thread, and the change counts
 * as handled only once it returns, so a failure is retried rather than lost.
 */
@FunctionalInterface
public interface ChangeMapper {

  /** The ids {@code change} affects; empty for none. */
  Collection<String> ids(DataChange change) throws Exception;

  /** Maps a change to the value of one of its key columns: the id is part of the row's key. */
  static ChangeMapper keyColumn(String column) {
    return change -> List.of(change.key(column));
  }
}
