package io.warmgate.agent;

import io.warmgate.agent.l2.Envelope;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.agent.l2.L2Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads ids whose L2 entry is about to expire, in the background, in only one pod: the one whose
 * {@code SET <lock> <token> NX PX <lockTtl>} succeeds. Losers do nothing and nobody waits; the
 * winner reloads all its won ids with one origin call and then releases each lock with a
 * compare-and-delete of its own token, so a lock that expired and was taken by another pod is
 * left alone. A winner first re-reads the entry and skips ids another pod has just refreshed.
 * While its reload runs the winner keeps its locks alive ({@link LeaseRenewer}, for at most the
 * origin's timeout), so a slow origin does not let a second pod refresh the same ids.
 */
final class RefreshAhead<V> {

  /** Reloads ids from the origin into both tiers; throws on origin error. */
  @FunctionalInterface
  interface Reload {
    void reload(List<String> ids) throws Exception;
  }

  private static final Logger log = LoggerFactory.getLogger(RefreshAhead.class);

  private final KeySpace keys;
  private final L2Store l2;
  private final long lockTtlMillis;
  private final LeaseRenewer renewer;
  private final String tokenPrefix;
  private final Executor executor;
  private final CacheMetrics metrics;
  private final Reload reload;
  /** Ids this pod is refreshing (or trying to), so it asks for each lock once. */
  private final Set<String> refreshing = ConcurrentHashMap.newKeySet();

  RefreshAhead(KeySpace keys, L2Store l2, Duration lockTtl, LeaseRenewer renewer, String podName,
      Executor executor, CacheMetrics metrics, Reload reload) {
    this.keys = keys;
    this.l2 = l2;
    this.lockTtlMillis = lockTtl.toMillis();
    this.renewer = renewer;
    this.tokenPrefix = podName + "/";
    this.executor = executor;
    this.metrics = metrics;
    this.reload = reload;
  }

  /**
   * Starts refreshing the given ids, each with the fetch time of the L2 entry that was found
   * near expiry; returns at once.
   */
  void refresh(Map<String, Long> seenFetchedAt) {
    List<String> mine = new ArrayList<>(seenFetchedAt.size());
    for (String id : seenFetchedAt.keySet()) {
      if (refreshing.add(id)) {
        mine.add(id);
      }
    }
    if (mine.isEmpty()) {
      return;
    }
    byte[] token = (tokenPrefix + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
    List<CompletableFuture<Boolean>> attempts = new ArrayList<>(mine.size());
    for (String id : mine) {
      attempts.add(l2.setIfAbsent(keys.lockKey(id), token, lockTtlMillis)
          .exceptionally(error -> false));
    }
    CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new))
        .thenCompose(ignored -> {
          List<String> locked = new ArrayList<>(mine.size());
          for (int i = 0; i < mine.size(); i++) {
            if (attempts.get(i).join()) {
              locked.add(mine.get(i));
            } else {
              metrics.refreshLost.increment();
              refreshing.remove(mine.get(i));
            }
          }
          return locked.isEmpty() ? CompletableFuture.completedFuture(locked)
              : stillStale(locked, seenFetchedAt, token);
        })
        .thenAccept(won -> {
          if (won.isEmpty()) {
            return;
          }
          metrics.refreshWon.increment(won.size());
          List<String> lockKeys = new ArrayList<>(won.size());
          won.forEach(id -> lockKeys.add(keys.lockKey(id)));
          LeaseRenewer.Hold hold = renewer.hold(lockKeys, token);
          try {
            executor.execute(() -> reloadAndRelease(won, token, hold));
          } catch (RejectedExecutionException closedOrFull) {
            // A refresh is optional: with the cache closed or its loader queue full, let it go.
            hold.end();
            release(won, token);
          }
        });
  }

  /**
   * Keeps the locked ids whose L2 entry is still the one seen near expiry. Another pod may have
   * refreshed and released its lock between our read and our lock; reloading again would double
   * the origin reads of this refresh window. Ids dropped here release their lock and count as lost.
   */
  private CompletableFuture<List<String>> stillStale(List<String> locked,
      Map<String, Long> seenFetchedAt, byte[] token) {
    List<String> lockedKeys = new ArrayList<>(locked.size());
    for (String id : locked) {
      lockedKeys.add(keys.valueKey(id));
    }
    return l2.getAll(lockedKeys).handle((values, error) -> {
      List<String> won = new ArrayList<>(locked.size());
      List<String> done = new ArrayList<>();
      for (int i = 0; i < locked.size(); i++) {
        String id = locked.get(i);
        if (error == null && values.get(i) != null && newer(values.get(i), seenFetchedAt.get(id))) {
          done.add(id);
        } else {
          won.add(id);
        }
      }
      if (!done.isEmpty()) {
        metrics.refreshLost.increment(done.size());
        release(done, token);
      }
      return won;
    });
  }

  private boolean newer(byte[] stored, long seenFetchedAt) {
    try {
      return Envelope.decode(stored, keys.schemaHash()).fetchedAtMillis() > seenFetchedAt;
    } catch (Envelope.EnvelopeException e) {
      return false;
    }
  }

  private void reloadAndRelease(List<String> ids, byte[] token, LeaseRenewer.Hold hold) {
    try {
      hold.calling();
      reload.reload(ids);
    } catch (Throwable t) {
      // The current entries stay until they expire; the next lookup after that tries again.
      metrics.refreshFailed.increment();
      log.debug("refresh-ahead of {} ids failed", ids.size(), t);
    } finally {
      hold.end();
      release(ids, token);
    }
  }

  private void release(List<String> ids, byte[] token) {
    for (String id : ids) {
      l2.deleteIfEquals(keys.lockKey(id), token).whenComplete((deleted, error) -> refreshing.remove(id));
    }
  }
}
