package io.warmgate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds package cycles in a module's sources: package A uses a type of package B, and B, directly
 * or through other packages, a type of A. A use is an {@code import} (plain, static or on demand)
 * or a fully qualified name in code; comments and string literals do not count, nor do uses of
 * packages that are not in the source root.
 *
 * <pre>{@code
 * PackageCycles.assertNone(Path.of("src/main/java"), "io.warmgate.agent");
 * }</pre>
 */
public final class PackageCycles {

  private static final Pattern PACKAGE =
      Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
  private static final Pattern IMPORT =
      Pattern.compile("^\\s*import\\s+(?:static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
  private static final Pattern QUALIFIED = Pattern.compile("(?<![\\w.])([a-z_][\\w]*(?:\\.[a-z_]"
      + "[\\w]*)*\\.[A-Z]\\w*)");

  private PackageCycles() {}

  /**
   * Returns the package cycles among the packages under {@code rootPackage} in the {@code .java}
   * files under {@code sourceRoot}, one text per set of packages that reach each other: the
   * packages, then each use that makes an edge among them ({@code file → used type}). Empty if
   * there is none.
   *
   * @throws UncheckedIOException if a file cannot be read
   * @throws IllegalArgumentException if {@code sourceRoot} is not a directory
   */
  public static List<String> find(Path sourceRoot, String rootPackage) {
    if (!Files.isDirectory(sourceRoot)) {
      throw new IllegalArgumentException("no source directory at " + sourceRoot.toAbsolutePath());
    }
    Map<Path, String> sources = read(sourceRoot);
    Map<Path, String> packages = new HashMap<>();
    Set<String> known = new TreeSet<>();
    sources.forEach((file, code) -> {
      Matcher m = PACKAGE.matcher(code);
      String pkg = m.find() ? m.group(1) : "";
      packages.put(file, pkg);
      if (within(pkg, rootPackage)) {
        known.add(pkg);
      }
    });
    // edges.get(a).get(b): the uses by files of a of types of b
    Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
    sources.forEach((file, code) -> {
      String from = packages.get(file);
      if (!known.contains(from)) {
        return;
      }
      String where = sourceRoot.relativize(file).toString().replace('\\', '/');
      for (String[] use : uses(code)) {
        String to = use[0];
        if (!to.equals(from) && known.contains(to)) {
          edges.computeIfAbsent(from, k -> new TreeMap<>()).computeIfAbsent(to, k -> new TreeSet<>())
              .add(where + " → " + use[1]);
        }
      }
    });
    List<String> cycles = new ArrayList<>();
    for (Set<String> component : strongComponents(known, edges)) {
      StringBuilder text = new StringBuilder("cycle among ").append(String.join(", ", component))
          .append(':');
      for (String from : component) {
        edges.getOrDefault(from, Map.of()).forEach((to, why) -> {
          if (component.contains(to)) {
            text.append("\n  ").append(from).append(" → ").append(to);
            why.forEach(w -> text.append("\n    ").append(w));
          }
        });
      }
      cycles.add(text.toString());
    }
    return cycles;
  }

  /**
   * Fails if {@link #find} finds a cycle, with a message that lists each one.
   *
   * @throws AssertionError naming the cycles and the uses that make them
   */
  public static void assertNone(Path sourceRoot, String rootPackage) {
    List<String> cycles = find(sourceRoot, rootPackage);
    if (!cycles.isEmpty()) {
      throw new AssertionError(cycles.size() + " package cycle(s) in " + sourceRoot + " (a package "
          + "must not use a package that uses it; move the shared type down or depend on an "
          + "interface of the lower package):\n" + String.join("\n", cycles));
    }
  }

  private static boolean within(String pkg, String rootPackage) {
    return pkg.equals(rootPackage) || pkg.startsWith(rootPackage + ".");
  }

  private static Map<Path, String> read(Path sourceRoot) {
    Map<Path, String> sources = new TreeMap<>();
    try (Stream<Path> files = Files.walk(sourceRoot)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        sources.put(file, Files.readString(file, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the sources under " + sourceRoot, e);
    }
    return sources;
  }

  /** The (package, type) pairs {@code code} uses by import or fully qualified name. */
  static List<String[]> uses(String code) {
    String stripped = stripCommentsAndStrings(code);
    List<String[]> uses = new ArrayList<>();
    Matcher imports = IMPORT.matcher(stripped);
    while (imports.find()) {
      String name = imports.group(1);
      if (imports.group(2) != null && typeStart(name) < 0) {
        uses.add(new String[] {name, name + ".*"}); // import p.*;
      } else {
        addType(uses, name);
      }
    }
    String body = IMPORT.matcher(PACKAGE.matcher(stripped).replaceAll("")).replaceAll("");
    Matcher qualified = QUALIFIED.matcher(body);
    while (qualified.find()) {
      addType(uses, qualified.group(1));
    }
    return uses;
  }

  private static void addType(List<String[]> uses, String name) {
    int start = typeStart(name);
    if (start > 0) {
      int end = name.indexOf('.', start);
      String type = end < 0 ? name : name.substring(0, end);
      uses.add(new String[] {name.substring(0, start - 1), type});
    }
  }

  /** The index of the first segment that starts with a capital (a type), or -1. */
  private static int typeStart(String name) {
    int segment = 0;
    for (int i = 0; i <= name.length(); i++) {
      if (i == name.length() || name.charAt(i) == '.') {
        if (segment < name.length() && Character.isUpperCase(name.charAt(segment))) {
          return segment;
        }
        segment = i + 1;
      }
    }
    return -1;
  }

  /** Replaces comments, string and text-block literals and char literals with spaces. */
  static String stripCommentsAndStrings(String code) {
    StringBuilder out = new StringBuilder(code.length());
    int i = 0;
    int n = code.length();
    while (i < n) {
      char c = code.charAt(i);
      if (code.startsWith("//", i)) {
        int end = code.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (code.startsWith("/*", i)) {
        int end = code.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else if (code.startsWith("\"\"\"", i)) {
        int j = i + 3;
        while (j < n && !code.startsWith("\"\"\"", j)) {
          j += code.charAt(j) == '\\' ? 2 : 1;
        }
        i = Math.min(n, j + 3);
        out.append("\"\"");
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && code.charAt(j) != c && code.charAt(j) != '\n') {
          j += code.charAt(j) == '\\' ? 2 : 1;
        }
        i = Math.min(n, j + 1);
        out.append(c).append(c);
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Tarjan's strongly connected components with more than one package, each sorted. */
  private static List<Set<String>> strongComponents(Set<String> nodes,
      Map<String, Map<String, Set<String>>> edges) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> components = new ArrayList<>();
    int[] counter = {0};
    for (String node : nodes) {
      if (!index.containsKey(node)) {
        connect(node, edges, index, low, stack, onStack, components, counter);
      }
    }
    return components;
  }

  private static void connect(String v, Map<String, Map<String, Set<String>>> edges,
      Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
      Set<String> onStack, List<Set<String>> components, int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]);
    counter[0]++;
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Map.of()).keySet()) {
      if (!index.containsKey(w)) {
        connect(w, edges, index, low, stack, onStack, components, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        components.add(component);
      }
    }
  }
}
