package io.warmgate.operator.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.warmgate.contract.ChangeStreamNames;
import io.warmgate.contract.Durations;

/**
 * The Spanner change stream whose row changes invalidate cached ids: the settings of the
 * application's {@code ChangeStreamWatcher} (spanner-origin), which the webhook injects.
 */
public class ChangeStreamSpec {

  /** Shortest heartbeat Spanner takes, as the agent checks it too. */
  public static final String MIN_HEARTBEAT = "100ms";
  /** Longest heartbeat Spanner takes, as the agent checks it too. */
  public static final String MAX_HEARTBEAT = "5m";

  @Required
  @Size(max = ChangeStreamNames.MAX_LENGTH)
  @Pattern(ChangeStreamNames.PATTERN)
  @JsonPropertyDescription("Name of the Spanner change stream over the origin's tables, as in "
      + "CREATE CHANGE STREAM <name>: a letter, then up to 127 letters, digits or '_'. Injected "
      + "as WARMGATE_CHANGE_STREAM.")
  private String name;

  @Default("1s")
  @Size(max = Durations.MAX_LENGTH)
  @Pattern(Durations.PATTERN)
  @ValidationRule(value = "duration(self) >= duration('" + MIN_HEARTBEAT
      + "') && duration(self) <= duration('" + MAX_HEARTBEAT + "')",
      message = "changeStream.heartbeat must be a duration from " + MIN_HEARTBEAT + " to "
          + MAX_HEARTBEAT + " (the range Spanner takes), such as 1s")
  @JsonPropertyDescription("How often Spanner reports progress on a partition without changes: "
      + "how far the reader's watermark trails while nothing changes, and how long a stopping "
      + "reader takes to notice. From 100ms to 5m. Defaults to 1s. Injected as "
      + "WARMGATE_CHANGE_STREAM_HEARTBEAT.")
  private String heartbeat = "1s";

  public ChangeStreamSpec() {}

  public ChangeStreamSpec(String name, String heartbeat) {
    this.name = name;
    this.heartbeat = heartbeat;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getHeartbeat() {
    return heartbeat;
  }

  public void setHeartbeat(String heartbeat) {
    this.heartbeat = heartbeat;
  }
}
