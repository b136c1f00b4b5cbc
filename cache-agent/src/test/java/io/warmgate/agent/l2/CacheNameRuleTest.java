package io.warmgate.agent.l2;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The agent accepts exactly the cache names the CachePolicy CRD accepts as spec.cacheName. */
class CacheNameRuleTest {

  static final Path CRD = Path.of("../crds/cachepolicies.warmgate.io-v1.yml");

  @Test
  void theAgentAndTheCrdAcceptTheSameNames() throws IOException {
    assertThat(CRD).withFailMessage("%s is missing; run the test from the cache-agent module",
        CRD.toAbsolutePath()).exists();
    Matcher rule = Pattern.compile("\\n\\s+cacheName:\\n(?:\\s+description:.*\\n(?:\\s+\\\\.*\\n)*)?"
        + "\\s+maxLength: (\\d+)\\n\\s+minLength: (\\d+)\\n\\s+pattern: \"(.*)\"")
        .matcher(Files.readString(CRD));
    assertThat(rule.find()).as("spec.cacheName's rule in %s", CRD).isTrue();
    int max = Integer.parseInt(rule.group(1));
    int min = Integer.parseInt(rule.group(2));
    Pattern pattern = Pattern.compile(rule.group(3));

    List<String> names = List.of("deals", "d", "9", "a-b", "a--b", "deals-v2", "-deals", "deals-",
        "Deals", "de.als", "de_als", "de:als", "{deals}", "déals", "", "x".repeat(63),
        "x".repeat(64), "a" + "-".repeat(61) + "b", "a" + "-".repeat(62) + "b");
    for (String name : names) {
      boolean crd = name.length() >= min && name.length() <= max && pattern.matcher(name).find();
      boolean agent;
      try {
        KeySpace.requireValidCacheName(name);
        agent = true;
      } catch (IllegalArgumentException e) {
        agent = false;
      }
      assertThat(agent).as("agent accepts '%s' as the CRD does", name).isEqualTo(crd);
    }
  }
}
