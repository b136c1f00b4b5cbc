package io.warmgate.bench.operator;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Watches one Rollout and records {@link System#nanoTime()} when the first event shows it
 * released at the gate step. Opened before the instant it measures from, so no event is missed.
 */
public final class ReleaseWatch implements AutoCloseable {

  private final CompletableFuture<Long> released = new CompletableFuture<>();
  private final Watch watch;

  public ReleaseWatch(ArgoRolloutPart argo, String namespace, String name) {
    this.watch = argo.rollout(namespace, name).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource rollout) {
        if (ArgoRolloutPart.releasedAtGate(rollout)) {
          released.complete(System.nanoTime());
        }
      }

      @Override
      public void onClose(WatcherException cause) {
        released.completeExceptionally(new IllegalStateException("watch of Rollout " + namespace
            + "/" + name + " closed before the release", cause));
      }
    });
  }

  /**
   * Returns the {@link System#nanoTime()} at which the release event arrived.
   *
   * @throws IllegalStateException if it does not arrive within {@code timeout}
   */
  public long awaitReleaseNanos(Duration timeout) {
    try {
      return released.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the gate did not release the rollout within " + timeout, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the release", e);
    }
  }

  /** The {@link System#nanoTime()} of the release event, or null before it arrived. */
  public Long releasedNanos() {
    return released.isDone() && !released.isCompletedExceptionally() ? released.join() : null;
  }

  @Override
  public void close() {
    watch.close();
  }
}
