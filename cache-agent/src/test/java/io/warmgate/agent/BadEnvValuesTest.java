package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Malformed WARMGATE_* values that WarmGateConfigTest does not try: out-of-range numbers, values
 * that overflow, characters that could end up in keys. Each fails start-up naming the variable.
 */
class BadEnvValuesTest {

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "WARMGATE_STALE_IF_ERROR  | 999999999h            | a duration of at most 2562047h47m16.854775807s, the longest Go and Kubernetes accept",
      "WARMGATE_L1_MAX_SIZE     | 99999999999999999999  | a whole number greater than 0, such as 100000",
      "WARMGATE_L1_MAX_SIZE     | -1                    | a whole number greater than 0, such as 100000",
      "WARMGATE_MAX_VALUE_BYTES | 9999999999GiB         | a byte size below 8 EiB",
      "WARMGATE_L2_TTL          | 1d                    | a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)",
      "WARMGATE_L2_TIMEOUT      | 500us                 | a duration such as 500ms, 60s, 4m, 1h30m or 1.5s (amounts of up to 9 digits, with an optional fraction, each with a unit of ms, s, m or h; or 0)",
      "WARMGATE_ORIGIN_BREAKER_WAIT | 0s                | a positive duration such as 500ms, 5s or 1m",
      "WARMGATE_VALKEY_ADDRESSES| valkey:6379:1         | comma-separated host:port pairs",
      "WARMGATE_CACHE_NAME      | déals                 | 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
      "WARMGATE_CACHE_NAME      | {deals}               | 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
      "WARMGATE_CACHE_NAME      | deals*                | 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit",
      "WARMGATE_KEY_SPACE_VERSION | v2:cents            | 1 to 63 letters, digits, '.', '_' or '-', such as 2 or 2026-03-cents (or unset it to keep the type's own key space)"})
  void malformedValueFailsStartUpNamingVariableValueAndExpectedForm(String variable, String value,
      String expected) {
    Map<String, String> env = new HashMap<>(Map.of("WARMGATE_CACHE_NAME", "deals"));
    env.put(variable, value);

    assertThatThrownBy(() -> WarmGateConfig.from(env))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(variable + "='" + value + "' is invalid: expected " + expected);
  }
}
