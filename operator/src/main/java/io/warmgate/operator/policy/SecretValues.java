package io.warmgate.operator.policy;

import io.warmgate.operator.model.CaCertificateRef;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.status.Reasons;

/**
 * The values a policy's Valkey connection takes from Secrets, through {@link SecretReader}, each
 * with the check that says which Secret or key is missing or forbidden and what to do about it.
 */
final class SecretValues {

  private final SecretReader reader;

  SecretValues(SecretReader reader) {
    this.reader = reader;
  }

  /**
   * What the Valkey connection needs from Secrets.
   *
   * @param password the password, or null when none is named or it could not be read
   * @param caCertificates the PEM certificates of the CA, or null likewise
   * @param check the first Secret that could not be read, or passed
   */
  record ValkeySecrets(char[] password, String caCertificates, Check check) {}

  /** The password and, with TLS, the CA certificates {@code valkey} names. */
  ValkeySecrets forValkey(String namespace, ValkeySpec valkey) {
    SecretKeyRef passwordRef = valkey.getPasswordSecretKeyRef();
    Value password = read(namespace,
        passwordRef == null || passwordRef.getName() == null ? null : passwordRef,
        "spec.valkey.passwordSecretKeyRef", "the Valkey password");
    CaCertificateRef caRef = Boolean.TRUE.equals(valkey.getTls())
        ? valkey.getTlsCaSecretRef() : null;
    Value ca = read(namespace,
        caRef == null ? null : new SecretKeyRef(caRef.getName(), caRef.getKey()),
        "spec.valkey.tlsCaSecretRef", "the PEM certificates of the CA that signed the servers'");
    return new ValkeySecrets(password.value(),
        ca.value() == null ? null : new String(ca.value()),
        !password.check().ok() ? password.check() : ca.check());
  }

  /** A value read from a Secret key, or the check that says why it could not be. */
  private record Value(char[] value, Check check) {}

  /**
   * The value under {@code ref} in the namespace's Secrets; no value and a passed check when
   * {@code ref} is null.
   */
  private Value read(String namespace, SecretKeyRef ref, String field, String what) {
    if (ref == null) {
      return new Value(null, Check.passed());
    }
    SecretReader.Read read = reader.read(namespace, ref.getName(), ref.getKey());
    return switch (read.found()) {
      case VALUE -> new Value(read.value(), Check.passed());
      case NO_SECRET -> new Value(null, Check.failed(Reasons.SECRET_NOT_FOUND, "Secret "
          + namespace + "/" + ref.getName() + " named by " + field + " does not exist; create it "
          + "with " + what + " under key '" + ref.getKey() + "'"));
      case NO_KEY -> new Value(null, Check.failed(Reasons.SECRET_KEY_NOT_FOUND, "Secret "
          + namespace + "/" + ref.getName() + " has no key '" + ref.getKey() + "'; add it or "
          + "fix " + field + ".key"));
      case FORBIDDEN -> new Value(null, Check.failed(Reasons.SECRET_FORBIDDEN, "The "
          + "operator may not read Secret " + namespace + "/" + ref.getName() + " named by "
          + field + ": it reads Secrets only in the namespaces it is granted get on; install "
          + "the chart with this namespace in watchNamespaces or rbac.secretNamespaces"));
    };
  }
}
