package io.warmgate.example.deals;

import io.warmgate.agent.Origin;
import io.warmgate.example.deal.Deal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The versions of the served Deal type. The version is chosen per pod by {@code DEAL_SCHEMA_VERSION},
 * so changing it in a pod template changes the cached type and therefore the schema hash.
 */
public enum DealSchema {
  V1(DealV1.class, DealV1::from),
  V2(DealV2.class, DealV2::from);

  /** The environment variable that selects the version. */
  public static final String ENV = "DEAL_SCHEMA_VERSION";

  private final Class<?> type;
  private final Function<Deal, ?> mapper;

  DealSchema(Class<?> type, Function<Deal, ?> mapper) {
    this.type = type;
    this.mapper = mapper;
  }

  /** The cached and served type of this version. */
  public Class<?> type() {
    return type;
  }

  /**
   * Parses {@code v1} or {@code v2} (any case); null or blank means {@link #V1}.
   *
   * @throws IllegalArgumentException naming the value and the accepted ones
   */
  public static DealSchema parse(String value) {
    if (value == null || value.isBlank()) {
      return V1;
    }
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ENV + "='" + value + "' is not a Deal schema version: use one of "
          + Arrays.toString(values()).toLowerCase(Locale.ROOT), e);
    }
  }

  /** Wraps the Spanner Deal origin so it returns this version's type. */
  @SuppressWarnings("unchecked")
  <V> Origin<V> adapt(Origin<Deal> deals) {
    return ids -> {
      Map<String, V> out = new LinkedHashMap<>();
      deals.loadAll(ids).forEach((id, deal) -> out.put(id, (V) mapper.apply(deal)));
      return out;
    };
  }
}
