package io.warmgate.operator.policy;

import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.valkey.ValkeyClients;
import java.util.Set;

/**
 * Turns a change of a Valkey endpoint's probe outcome ({@link ValkeyClients#watch}) into a pass of
 * each policy that uses the endpoint, so that an idle policy needs no timer of its own to report
 * Valkey going down or coming back. It has no secondary resources.
 */
final class ValkeyChanges extends AbstractEventSource<Void, CachePolicy> {

  static final String NAME = "valkey-endpoints";

  ValkeyChanges() {
    super(Void.class, NAME);
  }

  /** Reconciles the policies {@code users} (each {@code <namespace>/<name>}) once more. */
  void changed(Set<String> users) {
    if (!isRunning()) {
      return;
    }
    for (String user : users) {
      getEventHandler().handleEvent(new Event(policy(user)));
    }
  }

  /** The policy {@link ValkeyClients#user} named {@code user}. */
  static ResourceID policy(String user) {
    int slash = user.indexOf('/');
    return new ResourceID(user.substring(slash + 1), user.substring(0, slash));
  }

  @Override
  public Set<Void> getSecondaryResources(CachePolicy primary) {
    return Set.of();
  }
}
