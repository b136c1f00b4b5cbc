package io.warmgate.contract.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The key table of {@code docs/valkey-layout.md} lists exactly the keys {@link ControlKeys} and
 * {@link ValueKeys} build, in the doc's notation ({@code T:warm:<hash>:ids}). Every public method
 * of theirs that returns a String is a key, except the parts in {@link #NOT_KEYS}; its arguments
 * are the placeholders of {@link #PLACEHOLDERS}, chosen by parameter name.
 */
class ValkeyLayoutDocTest {

  static final Path DOC = Path.of("../docs/valkey-layout.md");
  static final String CACHE = "<cache>";

  /** Parameter name → the argument passed and how the doc writes it. */
  static final Map<String, Placeholder> PLACEHOLDERS = Map.of(
      "schemaHash", new Placeholder("<hash>", "<hash>"),
      "bucketEpochSecond", new Placeholder(1_234_567_890L, "<bucket>"),
      "id", new Placeholder("escapedId", "<escapedId>"),
      "stream", new Placeholder("<stream>", "<stream>"));

  /** Methods that return a part of a key, not a key. */
  static final Set<String> NOT_KEYS = Set.of("cacheName", "tag", "prefix", "toString");

  record Placeholder(Object argument, String written) {}

  @Test
  void everyKeyTheContractBuildsIsInTheDocsTableAndEveryRowIsOne() throws Exception {
    Set<String> built = builtKeys();
    Set<String> documented = documentedKeys();

    assertThat(difference(built, documented))
        .as("keys the contract builds that the table of %s lacks (add a row)", DOC).isEmpty();
    assertThat(difference(documented, built))
        .as("rows of the table of %s that the contract does not build", DOC).isEmpty();
  }

  @Test
  void theDocsTagIsTheContracts() throws IOException {
    assertThat(Files.readString(DOC).replaceAll("\\s+", " "))
        .contains("`T` is the cache's hash tag `" + new ControlKeys(CACHE).tag() + "`");
  }

  /** Every key of both classes, as the doc writes it. */
  static Set<String> builtKeys() throws Exception {
    ControlKeys control = new ControlKeys(CACHE);
    Set<String> keys = new TreeSet<>();
    keys.addAll(keysOf(control));
    keys.addAll(keysOf(control.values("<hash>")));
    return keys;
  }

  private static List<String> keysOf(Object builder) throws Exception {
    String tag = new ControlKeys(CACHE).tag();
    List<String> keys = new ArrayList<>();
    for (Method method : builder.getClass().getDeclaredMethods()) {
      if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())
          || method.getReturnType() != String.class || NOT_KEYS.contains(method.getName())) {
        continue;
      }
      Parameter[] parameters = method.getParameters();
      Object[] arguments = new Object[parameters.length];
      for (int i = 0; i < parameters.length; i++) {
        arguments[i] = placeholder(method, parameters[i]).argument();
      }
      String key = (String) method.invoke(builder, arguments);
      for (Parameter parameter : parameters) {
        Placeholder p = placeholder(method, parameter);
        key = key.replace(String.valueOf(p.argument()), p.written());
      }
      keys.add(key.startsWith(tag) ? "T" + key.substring(tag.length()) : key);
    }
    return keys;
  }

  private static Placeholder placeholder(Method method, Parameter parameter) {
    Placeholder p = PLACEHOLDERS.get(parameter.getName());
    assertThat(p).as("%s.%s takes '%s', which has no placeholder here: add how the doc "
            + "writes it to PLACEHOLDERS (names like arg0 mean javac ran without -parameters)",
        method.getDeclaringClass().getSimpleName(), method.getName(), parameter.getName())
        .isNotNull();
    return p;
  }

  /** The first cell of every row of the doc's key table, without its backticks. */
  static Set<String> documentedKeys() throws IOException {
    Set<String> keys = new TreeSet<>();
    boolean inTable = false;
    for (String line : Files.readAllLines(DOC)) {
      if (line.startsWith("| key |")) {
        inTable = true;
      } else if (inTable && !line.startsWith("|")) {
        break;
      } else if (inTable && !line.startsWith("| ---")) {
        keys.add(line.substring(1, line.indexOf(" | ")).strip().replace("`", ""));
      }
    }
    assertThat(keys).as("rows of the key table of %s", DOC).isNotEmpty();
    return keys;
  }

  private static Set<String> difference(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.removeAll(b);
    return out;
  }
}
