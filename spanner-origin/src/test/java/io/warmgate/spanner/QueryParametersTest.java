package io.warmgate.spanner;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueryParametersTest {

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM T WHERE Id IN UNNEST(@ids)",
      "SELECT * FROM UNNEST(@IDS) AS id JOIN T ON T.Id = id",
      "SELECT * FROM T WHERE Id IN UNNEST(@ids)\n"})
  void acceptsQueriesUsingTheParameter(String sql) {
    assertThatCode(() -> QueryParameters.requireIdsParameter(sql, "ids")).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM T WHERE Id = @id",
      "SELECT * FROM T WHERE Id IN UNNEST(@idsList)",
      "SELECT * FROM T WHERE Id IN UNNEST(ids)"})
  void refusesQueriesWithoutIt(String sql) {
    assertThatThrownBy(() -> QueryParameters.requireIdsParameter(sql, "ids"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("query has no @ids parameter")
        .hasMessageContaining(sql.strip());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "@ids", "1ids", "ids list"})
  void refusesBadParameterNames(String name) {
    assertThatThrownBy(() -> QueryParameters.requireIdsParameter("SELECT 1", name))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("idsParameter '" + name + "' is not a query parameter name");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT 1 FROM T WHERE Id IN UNNEST(@keys)"})
  void namesTheRenamedParameterWithoutSuggestingTheRename(String sql) {
    assertThatThrownBy(() -> QueryParameters.requireIdsParameter("SELECT 1", "keys"))
        .hasMessageContaining("no @keys parameter").hasMessageNotContaining("idsParameter(");
    assertThatCode(() -> QueryParameters.requireIdsParameter(sql, "keys")).doesNotThrowAnyException();
  }
}
