package io.warmgate.agent.invalidate;

import java.util.Collection;

/** The in-process tier of one cache, as the invalidation listener sees it. */
public interface LocalTier {

  /** Drops {@code ids} from the in-process tier, fresh and stale-if-error entries alike. */
  void dropLocal(Collection<String> ids);

  /** Drops every entry of the in-process tier: invalidations may have been missed. */
  void dropAllLocal();
}
