package io.warmgate.operator.policy;

import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.TlsVerify;
import io.warmgate.operator.model.ValkeyMode;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.status.Reasons;
import io.warmgate.operator.valkey.AddressAllowlist;
import io.warmgate.operator.valkey.ProbeResult;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyEndpoint;
import java.util.List;

/**
 * Checks the Valkey a valid policy names, in order: its addresses against the operator's
 * allowlist (a refused address is never connected to, so the operator cannot be made a probe of
 * other services), the Secrets it needs, then a probe. Reports {@code L2Reachable} and returns
 * what {@code Ready} should say about Valkey.
 */
final class ValkeyCheck {

  private final ValkeyClients valkey;
  private final AddressAllowlist allowed;
  private final SecretValues secrets;

  ValkeyCheck(ValkeyClients valkey, AddressAllowlist allowed, SecretValues secrets) {
    this.valkey = valkey;
    this.allowed = allowed;
    this.secrets = secrets;
  }

  /** Checks the Valkey of {@code pass}'s policy, whose spec is valid. */
  Check check(PolicyPass pass) {
    ValkeySpec v = pass.spec().getValkey();
    List<String> refused = v.getAddresses().stream().filter(a -> !allowed.allows(a)).toList();
    if (!refused.isEmpty()) {
      valkey.release(pass.valkeyUser());
      String message = "spec.valkey.addresses " + refused + (refused.size() == 1 ? " is" : " are")
          + " not allowed by the operator's address allowlist ["
          + allowed.describe() + "]; name the in-cluster Valkey Service, such as "
          + "valkey." + pass.namespace() + ".svc:6379, or ask the operator's administrator to "
          + "add a pattern (chart value valkey.allowedAddresses)";
      pass.report(Conditions.L2_REACHABLE, Condition.FALSE, Reasons.ADDRESS_NOT_ALLOWED,
          message);
      return Check.failed(Reasons.ADDRESS_NOT_ALLOWED, message);
    }
    SecretValues.ValkeySecrets secret = secrets.forValkey(pass.namespace(), v);
    if (!secret.check().ok()) {
      notChecked(pass, secret.check().message());
      return secret.check();
    }
    ProbeResult probe = valkey.probe(pass.valkeyUser(), new ValkeyEndpoint(v.getAddresses(),
        v.getMode() == ValkeyMode.Cluster, Boolean.TRUE.equals(v.getTls()),
        v.getTlsVerify() != TlsVerify.CA, secret.caCertificates(), v.getUsername(),
        secret.password()));
    pass.report(Conditions.L2_REACHABLE, probe.reachable(), probe.reason(), probe.message());
    if (!probe.reachable()) {
      return Check.failed(probe.reason(), probe.message());
    }
    return probe.unprotected() == null ? Check.passed()
        : Check.failed(Reasons.PASSWORD_NOT_REQUIRED, probe.unprotected());
  }

  /** Forgets the policy's connection and reports Valkey as not checked, because {@code why}. */
  void notChecked(PolicyPass pass, String why) {
    valkey.release(pass.valkeyUser());
    pass.report(Conditions.L2_REACHABLE, Condition.UNKNOWN, Reasons.NOT_CHECKED,
        "Valkey was not checked: " + why);
  }
}
