package io.warmgate.agent;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The executor of one blocking lookup: until {@link #stop}, the tasks given to it run on the thread
 * that waits in {@link #await}; after, on {@code fallback}. A synchronous {@code get} that
 * reads L2 thus decodes the reply itself, with no hop to another thread and back, and needs no
 * free thread of the cache's executor, even when it is called from a callback running there.
 *
 * <p>The wait is a {@link ForkJoinPool#managedBlock managed block}: on a fork-join worker (the
 * cache's own completion executor) the pool may start a spare thread meanwhile, so lookups that
 * block in callbacks leave it threads to deliver the replies they wait for.
 */
final class CallerThreadExecutor implements Executor {

  private final Executor fallback;
  /** Usually one: the reply of the lookup's L2 read. */
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(2);
  private boolean stopped;

  CallerThreadExecutor(Executor fallback) {
    this.fallback = fallback;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      if (!stopped) {
        tasks.add(task);
        notifyAll();
        return;
      }
    }
    fallback.execute(task);
  }

  /**
   * Runs the given tasks on this thread until {@code future} is done. Not interruptible, like
   * {@link CompletableFuture#join}: an interrupt is kept for the caller to see.
   */
  <T> CompletableFuture<T> await(CompletableFuture<T> future) {
    Waiting waiting = new Waiting(future);
    future.whenComplete((value, error) -> wake());
    Runnable task;
    while ((task = waiting.next()) != null) {
      task.run();
    }
    if (waiting.interrupted) {
      Thread.currentThread().interrupt();
    }
    return future;
  }

  /**
   * Ends the waiting, whatever its outcome: tasks given from now on go to the fallback executor;
   * any given but not run yet (a lookup that failed early) run here first.
   */
  void stop() {
    Runnable[] left;
    synchronized (this) {
      stopped = true;
      left = tasks.toArray(Runnable[]::new);
      tasks.clear();
    }
    for (Runnable task : left) {
      task.run();
    }
  }

  private synchronized void wake() {
    notifyAll();
  }

  /** Waits for a task or for the future, as a managed block. */
  private final class Waiting implements ForkJoinPool.ManagedBlocker {
    private final CompletableFuture<?> future;
    boolean interrupted;

    Waiting(CompletableFuture<?> future) {
      this.future = future;
    }

    /** The next task, waiting for one; null once none is queued and the future is done. */
    Runnable next() {
      while (true) {
        try {
          ForkJoinPool.managedBlock(this);
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the flag is clear now; waiting on would not throw again
        }
      }
      synchronized (CallerThreadExecutor.this) {
        return tasks.poll();
      }
    }

    @Override
    public boolean block() throws InterruptedException {
      synchronized (CallerThreadExecutor.this) {
        while (!isReleasable()) {
          CallerThreadExecutor.this.wait();
        }
      }
      return true;
    }

    @Override
    public boolean isReleasable() {
      synchronized (CallerThreadExecutor.this) {
        return !tasks.isEmpty() || future.isDone();
      }
    }
  }
}
