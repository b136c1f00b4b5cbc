package io.warmgate.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a PromQL expression of warmgate's alerts and dashboard asks of the series it reads: each
 * metric it selects, with the label names it matches on and the label names the aggregations
 * around it group by ({@code sum by (namespace, cache) (rate(m[2m]))} needs {@code namespace}
 * and {@code cache} on {@code m}). Enough for the expressions warmgate ships: metric names start
 * with {@code warmgate_} or {@code operator_sdk_}.
 */
final class PromQl {

  private static final Pattern SELECTOR =
      Pattern.compile("\\b((?:warmgate|operator_sdk)_[a-zA-Z0-9_]+)\\s*(\\{([^}]*)})?");
  private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");
  private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)\\s*\\(");

  private PromQl() {}

  /** Each metric {@code expr} selects, with the label names it needs; in order of appearance. */
  static Map<String, Set<String>> needs(String expr) {
    Map<String, Set<String>> needs = new LinkedHashMap<>();
    List<int[]> selectorSpans = new ArrayList<>();
    Matcher selector = SELECTOR.matcher(expr);
    while (selector.find()) {
      Set<String> labels = needs.computeIfAbsent(selector.group(1), k -> new LinkedHashSet<>());
      if (selector.group(3) != null) {
        Matcher m = MATCHER.matcher(selector.group(3));
        while (m.find()) {
          labels.add(m.group(1));
        }
      }
      selectorSpans.add(new int[] {selector.start(), selector.end()});
    }
    Matcher by = BY.matcher(expr);
    while (by.find()) {
      int open = by.end() - 1;
      int close = matching(expr, open);
      List<String> grouping = new ArrayList<>();
      for (String label : by.group(1).split(",")) {
        if (!label.isBlank()) {
          grouping.add(label.strip());
        }
      }
      Matcher inner = SELECTOR.matcher(expr.substring(open, close));
      while (inner.find()) {
        needs.get(inner.group(1)).addAll(grouping);
      }
    }
    return needs;
  }

  private static int matching(String expr, int open) {
    int depth = 0;
    for (int i = open; i < expr.length(); i++) {
      char c = expr.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')' && --depth == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("unbalanced parentheses in " + expr);
  }
}
