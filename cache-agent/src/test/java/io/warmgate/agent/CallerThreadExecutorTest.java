package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The executor a blocking lookup waits in: its tasks run on the waiting thread until it stops. */
class CallerThreadExecutorTest {

  private final ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "other"));
  private final List<String> ranOn = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    other.shutdownNow();
  }

  private Runnable record() {
    return () -> ranOn.add(Thread.currentThread().getName());
  }

  @Test
  void taskGivenFromAnotherThreadRunsOnTheWaitingThread() {
    CallerThreadExecutor here = new CallerThreadExecutor(other);
    CompletableFuture<String> future = new CompletableFuture<>();
    // Like an L2 reply: another thread hands over the completion, which runs where the caller waits.
    other.execute(() -> here.execute(() -> {
      ranOn.add(Thread.currentThread().getName());
      future.complete("v");
    }));

    assertThat(here.await(future).join()).isEqualTo("v");
    here.stop();

    assertThat(ranOn).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void futureCompletedElsewhereEndsTheWaitAndLaterTasksGoToTheFallback() throws Exception {
    CallerThreadExecutor here = new CallerThreadExecutor(other);
    CompletableFuture<String> future = new CompletableFuture<>();
    other.execute(() -> future.complete("v"));

    assertThat(here.await(future).join()).isEqualTo("v");
    here.stop();
    here.execute(record());

    other.shutdown();
    assertThat(other.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ranOn).containsExactly("other");
  }

  @Test
  void tasksNotRunWhenTheWaitEndedRunOnStop() {
    CallerThreadExecutor here = new CallerThreadExecutor(other);
    here.execute(record());

    here.stop();

    assertThat(ranOn).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void interruptDoesNotEndTheWaitAndIsKept() {
    CallerThreadExecutor here = new CallerThreadExecutor(other);
    CompletableFuture<String> future = new CompletableFuture<>();
    Thread.currentThread().interrupt();
    other.execute(() -> here.execute(() -> future.complete("v")));

    try {
      assertThat(here.await(future).join()).isEqualTo("v");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
      here.stop();
    }
  }
}
