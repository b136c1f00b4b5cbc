package io.warmgate.spanner;

import java.util.regex.Pattern;

/** Checks that a query takes the ids where the origin binds them. */
final class QueryParameters {

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private QueryParameters() {
  }

  /**
   * Throws unless {@code name} is a valid parameter name that {@code sql} uses as {@code @name}
   * (GoogleSQL parameter names ignore case).
   */
  static void requireIdsParameter(String sql, String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalStateException("idsParameter '" + name + "' is not a query parameter name: "
          + "use letters, digits and '_', not starting with a digit, and without the '@'");
    }
    Pattern use = Pattern.compile("@" + name + "(?![A-Za-z0-9_])", Pattern.CASE_INSENSITIVE);
    if (!use.matcher(sql).find()) {
      throw new IllegalStateException("query has no @" + name + " parameter, so it cannot read a "
          + "batch: the ids are bound to @" + name + " as ARRAY<STRING>; filter with e.g. "
          + "WHERE T.Id IN UNNEST(@" + name + ")"
          + (name.equals(SpannerOrigin.DEFAULT_IDS_PARAMETER) ? " or name your parameter with "
              + "idsParameter(\"...\")" : "")
          + ". Query: " + abbreviate(sql));
    }
  }

  private static String abbreviate(String sql) {
    String flat = sql.strip().replaceAll("\\s+", " ");
    return flat.length() <= 200 ? flat : flat.substring(0, 200) + "...";
  }
}
