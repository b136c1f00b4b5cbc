package io.warmgate.operator.gate;

import io.warmgate.operator.model.ForecastStatus;
import io.warmgate.operator.revision.NewPods;

/**
 * Whether a workload's new pods are warm, as one pass of {@link NewPodsGate} decided it: what the
 * decision endpoint and Flagger's webhook answer.
 *
 * @param warm whether the decision releases the new pods: the warm criterion is met, their schema
 *     is unchanged, or {@code onTimeout: Promote} applied after {@code maxWait}
 * @param pods the new pods the verdict speaks about
 * @param decision the decision, with its phase, reason and message
 * @param coverage the new key space's coverage, or null when not measured
 * @param minCoverage the coverage percentage needed
 * @param hitRatio the new key space's hit ratio (0-1), or null when not measured
 * @param newSchemaHash the schema hash of the new pods' agents, or null when none or several
 * @param stableSchemaHash the schema hash of the replaced pods' agents, or null
 * @param forecast the origin load releasing now would add, or null when not forecast
 */
public record WarmVerdict(boolean warm, NewPods pods, Decision decision, Coverage coverage,
    int minCoverage, Double hitRatio, String newSchemaHash, String stableSchemaHash,
    ForecastStatus forecast) {}
