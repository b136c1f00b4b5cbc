package io.warmgate.agent;

import java.util.concurrent.RejectedExecutionException;

/** The default loader pool's queue is full: its message says why, whole, for the caller's error. */
final class LoaderQueueFull extends RejectedExecutionException {

  LoaderQueueFull(String message) {
    super(message);
  }
}
