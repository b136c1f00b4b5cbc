package io.warmgate.operator.policy;

import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.TargetRef;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds the older policy a policy yields to, in indexes of the informer's cache: one that targets
 * the same workload (it gates the Rollout, so this one does not act), or one that uses the same
 * {@code cacheName} on the same Valkey (both would read and write the same keys: values, hot set,
 * warm jobs, stats, so pods of one could serve the other's data). The oldest policy wins, by
 * creation time, then namespace and name; policies being deleted do not count.
 */
final class PolicyConflicts {

  /** Policies by {@code <kind>:<namespace>/<name>} of their target. */
  static final String TARGET_INDEX = "warmgate.io/target";
  /** Policies by {@code <cacheName>@<Valkey address>}, one entry per address. */
  static final String CACHE_INDEX = "warmgate.io/cache";

  private static final Comparator<CachePolicy> AGE = Comparator
      .comparing(PolicyConflicts::createdAt)
      .thenComparing(p -> p.getMetadata().getNamespace())
      .thenComparing(p -> p.getMetadata().getName());

  private PolicyConflicts() {}

  /** Adds the indexes the lookups below read to the informer's cache of policies. */
  static void addIndexes(IndexerResourceCache<CachePolicy> policies) {
    policies.addIndexer(TARGET_INDEX, p -> Optional.ofNullable(p.getSpec())
        .map(CachePolicySpec::getTargetRef)
        .filter(ref -> ref.getKind() != null && ref.getName() != null)
        .map(ref -> List.of(targetKey(p.getMetadata().getNamespace(), ref.getKind().name(),
            ref.getName())))
        .orElse(List.of()));
    policies.addIndexer(CACHE_INDEX, PolicyConflicts::cacheKeys);
  }

  /** The policies whose target is {@code kind namespace/name}. */
  static Set<ResourceID> targeting(IndexedResourceCache<CachePolicy> policies, String kind,
      String namespace, String name) {
    return policies.byIndex(TARGET_INDEX, targetKey(namespace, kind, name)).stream()
        .map(ResourceID::fromResource).collect(Collectors.toSet());
  }

  /** The oldest policy older than {@code policy} that targets the same workload, if any. */
  static Optional<CachePolicy> olderOnSameTarget(CachePolicy policy,
      IndexedResourceCache<CachePolicy> policies) {
    TargetRef ref = policy.getSpec().getTargetRef();
    return oldestOlderThan(policy, policies.byIndex(TARGET_INDEX,
        targetKey(policy.getMetadata().getNamespace(), ref.getKind().name(), ref.getName()))
        .stream());
  }

  /**
   * The oldest policy older than {@code policy} that uses its {@code cacheName} on one of its
   * Valkey addresses, if any.
   */
  static Optional<CachePolicy> olderOnSameCache(CachePolicy policy,
      IndexedResourceCache<CachePolicy> policies) {
    return oldestOlderThan(policy, cacheKeys(policy).stream()
        .flatMap(key -> policies.byIndex(CACHE_INDEX, key).stream()));
  }

  /** Why {@code policy} does not gate its Rollout: {@code older} targets it too. */
  static String gatedByOlder(CachePolicy policy, CachePolicy older) {
    return "CachePolicy " + older.getMetadata().getNamespace() + "/"
        + older.getMetadata().getName() + " targets Rollout "
        + policy.getMetadata().getNamespace() + "/" + policy.getSpec().getTargetRef().getName()
        + " too and is older, so it gates it and this policy does not act; delete one of them "
        + "or point this one at another Rollout";
  }

  /** That no older policy targets {@code policy}'s Rollout. */
  static String soleGate(CachePolicy policy) {
    return "no older CachePolicy targets Rollout " + policy.getMetadata().getNamespace() + "/"
        + policy.getSpec().getTargetRef().getName();
  }

  /** Why {@code policy} may not use its cache: {@code older} uses it on the same Valkey. */
  static String cacheInUse(CachePolicy policy, CachePolicy older) {
    return "CachePolicy " + older.getMetadata().getNamespace() + "/"
        + older.getMetadata().getName() + " is older and uses cacheName '"
        + policy.getSpec().getCacheName() + "' on the same Valkey ("
        + String.join(", ", older.getSpec().getValkey().getAddresses()) + "): both would read "
        + "and write the same keys (values, hot set, warm jobs), so pods of one could serve "
        + "the other's data; give this policy another spec.cacheName or point "
        + "spec.valkey.addresses at another Valkey";
  }

  private static Optional<CachePolicy> oldestOlderThan(CachePolicy policy,
      Stream<CachePolicy> candidates) {
    ResourceID self = ResourceID.fromResource(policy);
    return candidates
        .filter(p -> !ResourceID.fromResource(p).equals(self))
        .filter(p -> !p.isMarkedForDeletion())
        .filter(p -> AGE.compare(p, policy) < 0)
        .min(AGE);
  }

  private static Instant createdAt(CachePolicy policy) {
    String created = policy.getMetadata().getCreationTimestamp();
    try {
      return created == null ? Instant.MAX : Instant.parse(created);
    } catch (DateTimeParseException e) {
      return Instant.MAX;
    }
  }

  private static String targetKey(String namespace, String kind, String name) {
    return kind + ":" + namespace + "/" + name;
  }

  private static List<String> cacheKeys(CachePolicy policy) {
    CachePolicySpec spec = policy.getSpec();
    if (spec == null || spec.getCacheName() == null || spec.getValkey() == null
        || spec.getValkey().getAddresses() == null) {
      return List.of();
    }
    return spec.getValkey().getAddresses().stream().filter(Objects::nonNull)
        .map(address -> spec.getCacheName() + "@" + address.trim().toLowerCase(Locale.ROOT))
        .distinct().toList();
  }
}
