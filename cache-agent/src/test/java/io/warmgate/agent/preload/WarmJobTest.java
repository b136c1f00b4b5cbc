package io.warmgate.agent.preload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.warmgate.contract.valkey.WarmJobState;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WarmJobTest {

  private static Map<String, String> open() {
    Map<String, String> fields = new HashMap<>();
    fields.put("target", "100");
    fields.put("rate", "50");
    fields.put("batchSize", "20");
    fields.put("state", "Open");
    fields.put("createdAt", "1764504000000");
    return fields;
  }

  @Test
  void readsAnOpenJobWithProgressDefaultingToZero() throws Exception {
    WarmJob job = WarmJob.parse(open());
    assertThat(job).isEqualTo(new WarmJob(100, 50.0, 20, WarmJobState.Open, 0, 0, 0));
  }

  @Test
  void readsProgressAndDecimalRates() throws Exception {
    Map<String, String> fields = open();
    fields.putAll(Map.of("state", "Running", "rate", "12.5", "filled", "38", "errors", "2",
        "cursor", "40"));
    assertThat(WarmJob.parse(fields))
        .isEqualTo(new WarmJob(100, 12.5, 20, WarmJobState.Running, 38, 2, 40));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "target    | -1     | a non-negative integer",
      "target    | ten    | a non-negative integer",
      "target    | 1.5    | a non-negative integer",
      "rate      | fast   | a positive number of ids per second",
      "rate      | 0      | a positive number of ids per second",
      "rate      | -3     | a positive number of ids per second",
      "rate      | NaN    | a positive number of ids per second",
      "rate      | 5d     | a positive number of ids per second",
      "batchSize | 0      | an integer from 1 to 10000",
      "batchSize | 10001  | an integer from 1 to 10000",
      "batchSize | x      | a non-negative integer",
      "filled    | -5     | a non-negative integer",
      "errors    | many   | a non-negative integer",
      "cursor    | 101    | at most target (100)",
      "state     | Paused | one of Open, Running, Done, Failed",
  })
  void malformedFieldIsNamedWithItsValueAndTheExpectedForm(String field, String value,
      String expected) {
    Map<String, String> fields = open();
    fields.put(field, value);
    assertThatThrownBy(() -> WarmJob.parse(fields))
        .isInstanceOf(WarmJob.InvalidJobException.class)
        .hasMessageStartingWith("warm job field '" + field + "' is '" + value + "': expected " + expected);
  }

  @ParameterizedTest
  @CsvSource({"target", "rate", "batchSize", "state"})
  void missingRequiredFieldIsNamed(String field) {
    Map<String, String> fields = open();
    fields.remove(field);
    assertThatThrownBy(() -> WarmJob.parse(fields))
        .isInstanceOf(WarmJob.InvalidJobException.class)
        .hasMessageStartingWith("warm job field '" + field + "' is missing");
  }

  @Test
  void openJobRunsAdvancesAndIsDone() throws Exception {
    WarmJob job = WarmJob.parse(open());
    assertThat(job.state().isActive()).isTrue();
    assertThatThrownBy(() -> job.advance(1, 0)).isInstanceOf(IllegalStateException.class);

    WarmJob running = job.start().advance(18, 2).advance(20, 0);
    assertThat(running).isEqualTo(new WarmJob(100, 50.0, 20, WarmJobState.Running, 38, 2, 40));
    assertThat(running.progressFields("pod-a", 7L)).containsExactly(
        Map.entry("state", "Running"), Map.entry("filled", "38"), Map.entry("errors", "2"),
        Map.entry("cursor", "40"), Map.entry("owner", "pod-a"), Map.entry("updatedAt", "7"));

    WarmJob done = running.done();
    assertThat(done.state()).isEqualTo(WarmJobState.Done);
    assertThat(done.state().isActive()).isFalse();
    assertThatThrownBy(() -> done.advance(1, 0)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(done::done).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void takeoverKeepsTheProgressOfThePreviousOwner() throws Exception {
    Map<String, String> fields = open();
    fields.putAll(Map.of("state", "Running", "filled", "40", "cursor", "40", "owner", "pod-a"));
    WarmJob resumed = WarmJob.parse(fields).start();
    assertThat(resumed.cursor()).isEqualTo(40);
    assertThat(resumed.progressFields("pod-b", 9L)).containsEntry("owner", "pod-b")
        .containsEntry("cursor", "40").containsEntry("filled", "40");
  }

  @Test
  void endIsTheTargetOrTheListLengthIfShorter() throws Exception {
    WarmJob job = WarmJob.parse(open());
    assertThat(job.end(500)).isEqualTo(100);
    assertThat(job.end(60)).isEqualTo(60);
  }

  @Test
  void failedFieldsCarryTheMessage() {
    assertThat(WarmJob.failedFields("bad rate", "pod-a", 5L)).containsExactly(
        Map.entry("state", "Failed"), Map.entry("message", "bad rate"), Map.entry("owner", "pod-a"),
        Map.entry("updatedAt", "5"));
  }
}
