package io.warmgate.agent.schema;

import io.warmgate.agent.TieredCache;
import io.warmgate.agent.WarmGate;
import io.warmgate.agent.deal.Deal;
import java.util.Map;

/** Prints the schema hash a Deal cache uses; run in a separate JVM by {@link SchemaHashCrossJvmIT}. */
public final class PrintDealSchemaHash {

  private PrintDealSchemaHash() {}

  public static void main(String[] args) {
    try (TieredCache<Deal> cache = WarmGate.newBuilder(Deal.class, ids -> Map.of())
        .cacheName("deals").build()) {
      System.out.println(cache.schemaHash());
    }
  }
}
