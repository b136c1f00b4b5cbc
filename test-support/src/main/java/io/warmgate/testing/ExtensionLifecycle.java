package io.warmgate.testing;

/**
 * Shared start/stop policy of the extensions: a {@code static} extension field runs one server per
 * test class (nested classes share it), an instance field runs one server per test method.
 *
 * <p>With a per-class server, a test that leaves the server stopped (an outage test) does not leak
 * that outage: the next test finds it started again, on the same port, empty.
 */
final class ExtensionLifecycle {

  private final ManagedService service;
  private int classDepth;

  ExtensionLifecycle(ManagedService service) {
    this.service = service;
  }

  void beforeAll() {
    if (classDepth++ == 0) {
      service.start();
    }
  }

  void beforeEach() {
    if (!service.isRunning()) {
      service.start();
    }
  }

  void afterEach() {
    if (classDepth == 0) {
      service.close();
    }
  }

  void afterAll() {
    if (--classDepth == 0) {
      service.close();
    }
  }
}
