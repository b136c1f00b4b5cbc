package io.warmgate.agent;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Moves a cached type to a new L2 key space when the meaning of its values changes but their Java
 * type does not (a price now in cents, a field now filled differently): the value enters the
 * schema hash, so agents of the new release neither read nor write the entries of the old one, and
 * the operator's rollout gate treats the release as a schema change.
 *
 * <pre>{@code
 * @KeySpaceVersion("2")
 * public record Deal(String id, long price) {}
 * }</pre>
 *
 * <p>Read from the cached type itself, not from the types it contains. Without it the hash is what
 * it was before this annotation existed. The deployment can move the key space too, without a code
 * change: {@code WARMGATE_KEY_SPACE_VERSION}, the builder's {@code keySpaceVersion(...)}, or a
 * CachePolicy's {@code spec.keySpaceVersion}; this annotation and that setting enter the hash
 * separately.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface KeySpaceVersion {

  /**
   * Any label of 1 to 63 letters, digits, {@code .}, {@code _} or {@code -}, such as {@code 2} or
   * {@code 2026-03-cents}; only a change matters, not order. A value outside that is refused when
   * the cache is built.
   */
  String value();
}
