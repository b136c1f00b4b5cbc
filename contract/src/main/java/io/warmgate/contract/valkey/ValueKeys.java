package io.warmgate.contract.valkey;

import java.util.Objects;

/**
 * The keys of one cache's ids in one namespace (schema hash): the value key
 * {@code wg:<cache>:<hash>:<escapedId>}, and the id's refresh lock and fill lease, which take the
 * value key as their hash tag.
 *
 * <p>Value keys carry no tag, so values spread over every slot of a cluster. The lock and lease
 * share their value's slot, so a look at value and lease together ({@code MGET}) is one atomic
 * command, and a holder's value write reaches the server before the release that follows it on
 * the same connection. Ids are escaped with {@link IdEscaping#escape}, so no id's key can be
 * another id's, a lock or lease key, or a control key.
 */
public final class ValueKeys {

  private final String prefix;

  /** Names are used as given: the caller checks them (see {@link ControlKeys}). */
  public ValueKeys(String cacheName, String schemaHash) {
    Objects.requireNonNull(cacheName, "cacheName");
    Objects.requireNonNull(schemaHash, "schemaHash");
    this.prefix = "wg:" + cacheName + ":" + schemaHash + ":";
  }

  /** {@code wg:<cache>:<hash>:}, what every value key of the namespace starts with (for SCAN). */
  public String prefix() {
    return prefix;
  }

  /** {@code wg:<cache>:<hash>:<escapedId>}, the value key of {@code id}. */
  public String value(String id) {
    return prefix + IdEscaping.escape(id);
  }

  /** {@code {wg:<cache>:<hash>:<escapedId>}:lock}, the refresh-ahead lock of {@code id}. */
  public String lock(String id) {
    return "{" + value(id) + "}:lock";
  }

  /**
   * {@code {wg:<cache>:<hash>:<escapedId>}:fill}, the fill lease of {@code id}: held by the pod
   * loading it from the origin after an L2 miss, so that other pods wait for its value instead.
   */
  public String fill(String id) {
    return "{" + value(id) + "}:fill";
  }

  @Override
  public String toString() {
    return "ValueKeys{" + prefix + "}";
  }
}
