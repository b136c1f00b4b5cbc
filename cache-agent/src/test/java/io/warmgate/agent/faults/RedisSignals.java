package io.warmgate.agent.faults;

import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Freezes and thaws a redis-server by PID ({@code SIGSTOP}/{@code SIGCONT}): its sockets stay
 * open and accept bytes but nothing is answered, which is what a stalled or overloaded L2 looks
 * like to a client (unlike a refused connection).
 */
final class RedisSignals {

  private RedisSignals() {}

  /** The server's PID, as it reports it in {@code INFO server}. */
  static long pid(RedisCommands<String, String> redis) {
    for (String line : redis.info("server").split("\r?\n")) {
      if (line.startsWith("process_id:")) {
        return Long.parseLong(line.substring("process_id:".length()).trim());
      }
    }
    throw new IllegalStateException("INFO server has no process_id line");
  }

  static void stop(long pid) {
    signal("STOP", pid);
  }

  static void resume(long pid) {
    signal("CONT", pid);
  }

  private static void signal(String signal, long pid) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill -" + signal + " " + pid, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted sending SIG" + signal + " to " + pid, e);
    }
  }
}
