package io.warmgate.bench.release;

import io.lettuce.core.api.sync.RedisCommands;
import io.warmgate.agent.l2.KeySpace;
import io.warmgate.bench.operator.BenchPolicies;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.GatePhase;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Times the steps of one gated release as an observer outside the operator and the agents sees
 * them, every {@value #POLL_MILLIS} ms: the canary's agent registered in Valkey, each gate phase
 * the policy's status reports, and each state of the canary key space's warm job. Times are
 * seconds after the canary pod was started, so a slow step shows where a release's duration goes.
 */
final class GateSteps implements AutoCloseable {

  static final long POLL_MILLIS = 25;

  private final RedisCommands<String, String> valkey;
  private final BenchPolicies policies;
  private final String policy;
  private final String agentField;
  private final KeySpace canaryKeys;
  private final long startNanos = System.nanoTime();
  private final Map<String, Double> firstSeen = new LinkedHashMap<>();
  private final Thread poller;
  private volatile boolean running = true;

  /**
   * Starts observing; call right after the canary pod was started.
   *
   * @param agentField the canary agent's registry field, {@code <namespace>/<pod>}
   */
  GateSteps(RedisCommands<String, String> valkey, BenchPolicies policies, String policy,
      String agentField, KeySpace canaryKeys) {
    this.valkey = valkey;
    this.policies = policies;
    this.policy = policy;
    this.agentField = agentField;
    this.canaryKeys = canaryKeys;
    this.poller = Traffic.daemon("gate-steps").newThread(this::poll);
    poller.start();
  }

  private void poll() {
    while (running) {
      try {
        if (Boolean.TRUE.equals(valkey.hexists(canaryKeys.agentsKey(), agentField))) {
          mark("agent registered");
        }
        String job = valkey.hget(canaryKeys.warmJobKey(), "state");
        if (job != null) {
          mark("warm job " + job);
        }
        CachePolicy seen = policies.get(ReleaseEnv.NAMESPACE, policy);
        GatePhase phase = BenchPolicies.phase(seen);
        if (phase != null) {
          mark("gate " + phase);
        }
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // A failed poll loses one sample; the next one sees the same state or a later one.
      }
    }
  }

  private synchronized void mark(String step) {
    firstSeen.putIfAbsent(step, (System.nanoTime() - startNanos) / 1e9);
  }

  /** Seconds after the canary started at which the agent was first seen registered, or null. */
  synchronized Double registeredSeconds() {
    return firstSeen.get("agent registered");
  }

  /** Each step's first sighting, in order: step → seconds after the canary started. */
  synchronized Map<String, Double> steps() {
    return new LinkedHashMap<>(firstSeen);
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    poller.interrupt();
    poller.join();
  }
}
