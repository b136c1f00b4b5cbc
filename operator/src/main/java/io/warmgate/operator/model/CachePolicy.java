package io.warmgate.operator.model;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How one workload caches through warmgate: its cache name and TTLs, the Valkey it shares as L2,
 * how its canaries are warmed before a rollout continues, and how the agent is injected.
 */
@Group(CachePolicy.GROUP)
@Version(CachePolicy.VERSION)
@Kind("CachePolicy")
@ShortNames("cpol")
@AdditionalPrinterColumn(name = "Target", type = AdditionalPrinterColumn.Type.STRING,
    jsonPath = ".spec.targetRef.name",
    getDescription = "The Rollout, Deployment or StatefulSet whose pods use the cache.")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    getDescription = "Whether the policy is valid and its target, Secret and Valkey were found.")
@AdditionalPrinterColumn(name = "Gate", type = AdditionalPrinterColumn.Type.STRING,
    jsonPath = ".status.gate.phase",
    getDescription = "Phase of the rollout gate.")
@AdditionalPrinterColumn(name = "Stable", type = AdditionalPrinterColumn.Type.STRING,
    jsonPath = ".status.gate.stableSchemaHash",
    getDescription = "Schema hash of the stable pods.")
@AdditionalPrinterColumn(name = "Canary", type = AdditionalPrinterColumn.Type.STRING,
    jsonPath = ".status.gate.canarySchemaHash",
    getDescription = "Schema hash of the canary pods, while a canary is in progress.")
@AdditionalPrinterColumn(name = "Coverage", type = AdditionalPrinterColumn.Type.NUMBER,
    jsonPath = ".status.gate.coverage",
    getDescription = "Percentage of the hot set present in the canary's L2 key space.")
@AdditionalPrinterColumn(name = "Peak", type = AdditionalPrinterColumn.Type.NUMBER,
    jsonPath = ".status.gate.forecast.peak",
    getDescription = "Origin reads per second a release of the canary now would add at its "
        + "peak (forecast).")
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE,
    jsonPath = ".metadata.creationTimestamp",
    getDescription = "Time since the policy was created.")
public class CachePolicy extends CustomResource<CachePolicySpec, CachePolicyStatus>
    implements Namespaced {

  public static final String GROUP = "warmgate.io";
  public static final String VERSION = "v1alpha1";
}
