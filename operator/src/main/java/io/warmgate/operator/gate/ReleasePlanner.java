package io.warmgate.operator.gate;

import io.lettuce.core.RedisException;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.contract.valkey.ControlKeys;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads what a {@link ReleasePlan} is made from out of a policy's Valkey: the live agents
 * ({@code T:agents}), the hot set with its rates (every tracked id of {@code T:hot}, cut by
 * {@link HotSetForecast} to those expected to be read within {@code l2Ttl}) and every live key
 * space's traffic over the last minute ({@code T:stats:<hash>:<bucket>}).
 *
 * <p>The plan is for a schema-changing release of the whole fleet: every live key space is
 * taken to be one the release replaces, so its origin reads end with the release (a cache that
 * another workload shares is then over-forecast by that workload's part). Run while a
 * canary is held, it plans as if that canary had not started: {@code status.gate.forecast} is the
 * forecast of releasing that canary.
 */
public final class ReleasePlanner {

  private ReleasePlanner() {}

  /**
   * The plan for {@code policy}'s fleet now.
   *
   * @param budget origin reads per second the release may use, or null for the policy's
   *     {@code warmup.originBudget} (itself possibly unset)
   * @throws RedisException if Valkey cannot be read in time, or a key holds another type
   */
  public static ReleasePlan.Plan plan(ValkeyCommands valkey, CachePolicy policy, Integer budget,
      Instant now) {
    String cache = policy.getSpec().getCacheName();
    ControlKeys keys = new ControlKeys(cache);
    String namespace = policy.getMetadata().getNamespace();
    List<Agent> agents = AgentRegistry.live(valkey.sync(), keys, namespace, now);
    if (agents.isEmpty()) {
      return ReleasePlan.Plan.none(String.format(Locale.ROOT, "no live agent of cache %s in "
          + "namespace %s is registered in %s: plan while the fleet runs with the agent", cache,
          namespace, keys.agents()));
    }
    GateInputs.Warmup warmup = GateInputs.Warmup.of(policy.getSpec().getWarmup());
    Duration l2Ttl = GateObserver.l2Ttl(policy);
    NamespaceStats stats = new NamespaceStats(valkey, keys, GateObserver.READ_TIMEOUT);
    HotSetForecast.Cut hotSet = stats.hotSet(WarmupSpec.MAX_HOT_SET_SIZE, l2Ttl, now);
    if (hotSet.noForecast() != null) {
      return ReleasePlan.Plan.none("the hot set's rates are unknown: " + hotSet.noForecast());
    }
    Set<String> spaces = agents.stream().map(Agent::schemaHash).collect(Collectors.toSet());
    NamespaceStats.Traffic all = NamespaceStats.Traffic.NONE;
    for (String space : spaces) {
      all = all.plus(stats.traffic(space, now));
    }
    Integer chosenBudget = budget != null ? budget : warmup.originBudget();
    return ReleasePlan.of(new ReleasePlan.Inputs(hotSet.ids(), hotSet.rates(), all.requests(),
        all.originLoads(), all.originLoads(), agents.size(), chosenBudget, warmup.hotSetSize(),
        warmup.preloadRate(), l2Ttl));
  }
}
