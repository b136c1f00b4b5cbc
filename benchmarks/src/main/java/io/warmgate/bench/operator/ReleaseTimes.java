package io.warmgate.bench.operator;

import java.util.Map;

/**
 * Time a K-pod rollout spends at the gate step: the reference's fixed wait against warmgate.
 * Warmgate's new-schema figure is computed — keys needed ÷ the preload rate the caller measured,
 * plus the measured gate reaction; its same-schema figure is measured.
 */
record ReleaseTimes(double referenceSeconds, long keysNeeded, double preloadKeysPerSecond,
    double warmSeconds, double reactionP50Seconds, double reactionP95Seconds,
    double sameSchemaP50Seconds, double sameSchemaP95Seconds) {

  static ReleaseTimes of(OperatorBenchSettings settings, GateBench.Result gate) {
    long keys = (long) Math.ceil(settings.hotSetSize() * settings.minCoverage() / 100.0);
    double warm = keys / settings.preloadKeysPerSecond();
    return new ReleaseTimes(OperatorBenchSettings.REFERENCE_WAIT.toMillis() / 1000.0, keys,
        settings.preloadKeysPerSecond(), warm, gate.reaction().p50() / 1000,
        gate.reaction().p95() / 1000, gate.sameSchema().p50() / 1000,
        gate.sameSchema().p95() / 1000);
  }

  double newSchemaP50Seconds() {
    return warmSeconds + reactionP50Seconds;
  }

  double newSchemaP95Seconds() {
    return warmSeconds + reactionP95Seconds;
  }

  Map<String, Object> toJson() {
    return Map.of("referenceSeconds", referenceSeconds, "keysNeeded", keysNeeded,
        "preloadKeysPerSecondInput", preloadKeysPerSecond, "warmSecondsComputed", warmSeconds,
        "newSchemaP50SecondsComputed", newSchemaP50Seconds(),
        "newSchemaP95SecondsComputed", newSchemaP95Seconds(),
        "sameSchemaP50SecondsMeasured", sameSchemaP50Seconds,
        "sameSchemaP95SecondsMeasured", sameSchemaP95Seconds);
  }
}
