package io.warmgate.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The JUnit callbacks shared by every extension here: they start and stop one real server by the
 * policy of {@link ExtensionLifecycle} (a {@code static} field runs one server per class, an
 * instance field one per test).
 */
public abstract class ServiceExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final ExtensionLifecycle lifecycle;

  ServiceExtension(ManagedService service) {
    this.lifecycle = new ExtensionLifecycle(service);
  }

  @Override
  public final void beforeAll(ExtensionContext context) {
    lifecycle.beforeAll();
  }

  @Override
  public final void beforeEach(ExtensionContext context) {
    lifecycle.beforeEach();
  }

  @Override
  public final void afterEach(ExtensionContext context) {
    lifecycle.afterEach();
  }

  @Override
  public final void afterAll(ExtensionContext context) {
    lifecycle.afterAll();
  }
}
