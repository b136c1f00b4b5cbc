package io.warmgate.spanner.changes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Struct;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code ChangeRecord} column of a change stream query ({@code READ_<stream>(...)}):
 * data changes, heartbeats and child partitions, as Spanner documents the record types.
 */
final class ChangeRecords {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, Object>> OBJECT = new TypeReference<>() {};

  /** A partition that starts at {@code start}, split from or merged out of earlier ones. */
  record ChildPartition(String token, Timestamp start) {}

  /** What one row of the query held. */
  record Batch(List<DataChange> changes, Timestamp progress, List<ChildPartition> children) {}

  private ChangeRecords() {}

  /**
   * Reads one {@code ChangeRecord} value.
   *
   * @return its changes; the latest timestamp it shows the partition has reached (a commit or a
   *     heartbeat), or null; and the child partitions it announces
   */
  static Batch read(List<Struct> records) {
    List<DataChange> changes = new ArrayList<>();
    List<ChildPartition> children = new ArrayList<>();
    Timestamp progress = null;
    for (Struct record : records) {
      for (Struct data : record.getStructList("data_change_record")) {
        Timestamp commit = data.getTimestamp("commit_timestamp");
        progress = later(progress, commit);
        Instant at = Instant.ofEpochSecond(commit.getSeconds(), commit.getNanos());
        for (Struct mod : data.getStructList("mods")) {
          changes.add(new DataChange(data.getString("table_name"), data.getString("mod_type"),
              json(mod, "keys"), json(mod, "new_values"), json(mod, "old_values"), at));
        }
      }
      for (Struct heartbeat : record.getStructList("heartbeat_record")) {
        progress = later(progress, heartbeat.getTimestamp("timestamp"));
      }
      for (Struct split : record.getStructList("child_partitions_record")) {
        Timestamp start = split.getTimestamp("start_timestamp");
        for (Struct child : split.getStructList("child_partitions")) {
          children.add(new ChildPartition(child.getString("token"), start));
        }
      }
    }
    return new Batch(changes, progress, children);
  }

  private static Timestamp later(Timestamp a, Timestamp b) {
    return a == null || b.compareTo(a) > 0 ? b : a;
  }

  private static Map<String, Object> json(Struct mod, String column) {
    if (mod.isNull(column)) {
      return Map.of();
    }
    String text = mod.getJson(column);
    try {
      Map<String, Object> values = JSON.readValue(text, OBJECT);
      return values == null ? Map.of() : values;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("change stream mod column " + column + " is not a JSON "
          + "object: " + text, e);
    }
  }
}
