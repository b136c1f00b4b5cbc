package io.warmgate.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public top-level types of the agent's jar are its API and the machinery that another package
 * of the agent reaches; a new public type has to be added here, with the reason it is public.
 */
class PublicTypesTest {

  private static final String API = "API";

  /** Each public type, and why it is public. */
  static final Map<String, String> PUBLIC_TYPES = Map.ofEntries(
      Map.entry("io.warmgate.agent.CacheLoadException", API),
      Map.entry("io.warmgate.agent.KeySpaceVersion", API),
      Map.entry("io.warmgate.agent.Origin", API),
      Map.entry("io.warmgate.agent.TieredCache", API),
      Map.entry("io.warmgate.agent.WarmGate", API),
      Map.entry("io.warmgate.agent.WarmGateConfig", API),
      Map.entry("io.warmgate.agent.fleet.FleetServices",
          "WarmGate starts it; its Builder is what WarmGate.fleetServices(settings) hands users"),
      Map.entry("io.warmgate.agent.hot.HotKeys",
          "the engine samples lookups into it, the fleet services flush it"),
      Map.entry("io.warmgate.agent.invalidate.InvalidationListener",
          "the fleet services start it"),
      Map.entry("io.warmgate.agent.invalidate.Invalidator",
          "the fleet services start it"),
      Map.entry("io.warmgate.agent.invalidate.LocalTier",
          "the engine implements it, the fleet services' listener drops ids through it"),
      Map.entry("io.warmgate.agent.l1.L1Cache", "the engine's L1 tier"),
      Map.entry("io.warmgate.agent.l1.L1Entry", "what the engine keeps in L1"),
      Map.entry("io.warmgate.agent.l2.Envelope",
          "the engine and the invalidator read and write L2 values with it"),
      Map.entry("io.warmgate.agent.l2.KeySpace",
          "every package of the agent and the Spanner change stream reader name keys with it"),
      Map.entry("io.warmgate.agent.l2.L2Store", "the engine's guarded L2 client"),
      Map.entry("io.warmgate.agent.preload.PreloadWorker", "the fleet services start it"),
      Map.entry("io.warmgate.agent.preload.WarmableCache",
          "WarmGate adapts the cache to it for the fleet services"),
      Map.entry("io.warmgate.agent.registry.AgentInfo",
          "the fleet services write it, the invalidator reads the live schema hashes from it"),
      Map.entry("io.warmgate.agent.registry.AgentRegistry", "the fleet services start it"),
      Map.entry("io.warmgate.agent.schema.SchemaHash", "WarmGate derives the key space with it"),
      Map.entry("io.warmgate.agent.stats.StatsFlusher", "the fleet services start it"),
      Map.entry("io.warmgate.agent.stats.WrittenKeys",
          "the engine records the ids it writes, the fleet services flush them"));

  @Test
  void everyPublicTypeOfTheJarIsListedWithItsReason() throws Exception {
    assertThat(publicTypes())
        .as("public top-level types of io.warmgate.agent: make a new one package-private, or add "
            + "it to PUBLIC_TYPES with the reason it must be public")
        .containsExactlyInAnyOrderElementsOf(PUBLIC_TYPES.keySet());
  }

  /** The public top-level classes under {@code io/warmgate/agent} of the main output directory. */
  private static Set<String> publicTypes() throws IOException, URISyntaxException,
      ClassNotFoundException {
    Path classes = Path.of(TieredCache.class.getProtectionDomain().getCodeSource().getLocation()
        .toURI());
    Set<String> names = new TreeSet<>();
    try (Stream<Path> files = Files.walk(classes.resolve("io/warmgate/agent"))) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String name = file.getFileName().toString();
        if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class")) {
          String type = classes.relativize(file).toString().replace(file.getFileSystem()
              .getSeparator(), ".").replaceAll("\\.class$", "");
          Class<?> loaded = Class.forName(type, false, PublicTypesTest.class.getClassLoader());
          if (Modifier.isPublic(loaded.getModifiers())) {
            names.add(type);
          }
        }
      }
    }
    return names;
  }
}
