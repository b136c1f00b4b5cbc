package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.warmgate.contract.Durations;

/** When a canary counts as warm, how it gets there, and what happens if it does not in time. */
@ValidationRule(value = "has(self.minHitRatio) == has(self.hitRatioWindow)",
    message = "warmup.minHitRatio and warmup.hitRatioWindow are set together; set both or neither",
    fieldPath = ".minHitRatio")
@ValidationRule(value = "!has(self.hitRatioWindow) "
    + "|| duration(self.hitRatioWindow) < duration(self.maxWait)",
    message = "warmup.hitRatioWindow must be shorter than warmup.maxWait, or the gate always "
        + "times out",
    fieldPath = ".hitRatioWindow")
public class WarmupSpec {

  /** The most hot ids an agent records ({@code HotKeys.DEFAULT_CAPACITY}): hotSetSize's cap. */
  public static final int MAX_HOT_SET_SIZE = 50_000;

  @Default("Organic")
  @JsonPropertyDescription("Organic: the canary's own traffic fills its L2 namespace. Preload: "
      + "one canary agent also loads the hot set from the origin at preloadRate. Defaults to "
      + "Organic.")
  private WarmupMode mode = WarmupMode.Organic;

  @Default("10000")
  @Min(1)
  @Max(WarmupSpec.MAX_HOT_SET_SIZE)
  @JsonPropertyDescription("Upper bound of the hot set: how many of the hottest key ids (sampled "
      + "from the stable pods' traffic) the gate considers. Of these it keeps the hottest ones "
      + "expected to be requested within l2Ttl, as many as keep the expected share never "
      + "requested (a preload's waste) at 5% or less; Preload loads them and coverage is measured "
      + "on them. When the agents record no request rates (older agents), all are kept. At most "
      + "50000, the most hot ids an agent records. With Preload, minCoverage percent of it must "
      + "load at preloadRate within l2Ttl and within maxWait. Defaults to 10000.")
  private Integer hotSetSize = 10000;

  @Default("500")
  @Min(1)
  @Max(100000)
  @JsonPropertyDescription("Most origin loads per second a Preload may issue, protecting the "
      + "origin. Defaults to 500.")
  private Integer preloadRate = 500;

  @Default("80")
  @Min(0)
  @Max(100)
  @JsonPropertyDescription("Percentage (0-100) of the hot set that must be in the canary's L2 "
      + "namespace before the rollout continues. Defaults to 80.")
  private Integer minCoverage = 80;

  @Min(0)
  @Max(100)
  @JsonPropertyDescription("Optional extra criterion: percentage (0-100) of the canary's lookups "
      + "answered by L1 or L2 over hitRatioWindow that must be reached, a percent like "
      + "minCoverage. Set together with hitRatioWindow.")
  private Integer minHitRatio;

  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @JsonPropertyDescription("Window over which minHitRatio is measured, such as 1m. Set together "
      + "with minHitRatio.")
  private String hitRatioWindow;

  @Default("10m")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) > duration('0s')",
      message = "warmup.maxWait must be a positive duration, such as 10m")
  @JsonPropertyDescription("Longest time the gate holds a canary for warming before onTimeout "
      + "applies. Defaults to 10m.")
  private String maxWait = "10m";

  @Default("Hold")
  @JsonPropertyDescription("What happens after maxWait: Hold keeps the rollout paused, Promote "
      + "releases it, Abort aborts it. Defaults to Hold.")
  private TimeoutAction onTimeout = TimeoutAction.Hold;

  @Default("true")
  @JsonPropertyDescription("Release the canary at once (gate phase Skipped) when its schema hash "
      + "equals the stable one, since it reads the same warm namespace. Defaults to true.")
  private Boolean skipWhenSchemaUnchanged = Boolean.TRUE;

  @Min(1)
  @JsonPropertyDescription("Optional warm criterion in the origin's terms: origin reads per "
      + "second the origin can take. The gate releases only when the current steady origin rate "
      + "plus the forecast peak of releasing now fits under it (status.gate.forecast), together "
      + "with minCoverage (set minCoverage: 0 to release by the budget alone). With Preload, the "
      + "preload's rate adapts under budget minus the steady rate (at most preloadRate) and backs "
      + "off when the origin slows down or errs. A budget below the steady rate can never be met "
      + "(reason CannotWarm).")
  private Integer originBudget;

  @Min(0)
  @Max(999)
  @JsonPropertyDescription("Index (0-based) of the Rollout's canary step at which the gate holds "
      + "the canary; it must be an indefinite pause step (pause: {}), since Argo Rollouts ends a "
      + "timed pause by itself. Defaults to the first indefinite pause step "
      + "(pause: {}).")
  private Integer gateStep;

  public WarmupMode getMode() {
    return mode;
  }

  public void setMode(WarmupMode mode) {
    this.mode = mode;
  }

  public Integer getHotSetSize() {
    return hotSetSize;
  }

  public void setHotSetSize(Integer hotSetSize) {
    this.hotSetSize = hotSetSize;
  }

  public Integer getPreloadRate() {
    return preloadRate;
  }

  public void setPreloadRate(Integer preloadRate) {
    this.preloadRate = preloadRate;
  }

  public Integer getMinCoverage() {
    return minCoverage;
  }

  public void setMinCoverage(Integer minCoverage) {
    this.minCoverage = minCoverage;
  }

  public Integer getOriginBudget() {
    return originBudget;
  }

  public void setOriginBudget(Integer originBudget) {
    this.originBudget = originBudget;
  }

  public Integer getMinHitRatio() {
    return minHitRatio;
  }

  public void setMinHitRatio(Integer minHitRatio) {
    this.minHitRatio = minHitRatio;
  }

  public String getHitRatioWindow() {
    return hitRatioWindow;
  }

  public void setHitRatioWindow(String hitRatioWindow) {
    this.hitRatioWindow = hitRatioWindow;
  }

  public String getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(String maxWait) {
    this.maxWait = maxWait;
  }

  public TimeoutAction getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(TimeoutAction onTimeout) {
    this.onTimeout = onTimeout;
  }

  public Boolean getSkipWhenSchemaUnchanged() {
    return skipWhenSchemaUnchanged;
  }

  public void setSkipWhenSchemaUnchanged(Boolean skipWhenSchemaUnchanged) {
    this.skipWhenSchemaUnchanged = skipWhenSchemaUnchanged;
  }

  public Integer getGateStep() {
    return gateStep;
  }

  public void setGateStep(Integer gateStep) {
    this.gateStep = gateStep;
  }
}
