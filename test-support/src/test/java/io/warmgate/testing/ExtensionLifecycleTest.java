package io.warmgate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExtensionLifecycleTest {

  /** Records calls; stands in for a server because the policy, not a process, is under test. */
  static final class RecordingService implements ManagedService {
    final List<String> calls = new ArrayList<>();
    boolean running;

    @Override
    public void start() {
      calls.add("start");
      running = true;
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public void close() {
      calls.add("close");
      running = false;
    }
  }

  private final RecordingService service = new RecordingService();
  private final ExtensionLifecycle lifecycle = new ExtensionLifecycle(service);

  @Test
  void staticFieldRunsOneServerForTheClassAndItsNestedClasses() {
    lifecycle.beforeAll();
    lifecycle.beforeEach();
    lifecycle.afterEach();
    lifecycle.beforeAll();
    lifecycle.beforeEach();
    lifecycle.afterEach();
    lifecycle.afterAll();
    lifecycle.beforeEach();
    lifecycle.afterEach();
    lifecycle.afterAll();

    assertThat(service.calls).containsExactly("start", "close");
  }

  @Test
  void instanceFieldRunsOneServerPerTest() {
    lifecycle.beforeEach();
    lifecycle.afterEach();

    assertThat(service.calls).containsExactly("start", "close");
  }

  @Test
  void serverLeftStoppedByATestIsStartedForTheNext() {
    lifecycle.beforeAll();
    lifecycle.beforeEach();
    service.running = false;
    lifecycle.afterEach();
    lifecycle.beforeEach();

    assertThat(service.calls).containsExactly("start", "start");
    assertThat(service.isRunning()).isTrue();
  }
}
