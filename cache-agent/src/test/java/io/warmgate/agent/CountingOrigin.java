package io.warmgate.agent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** An in-memory origin that records every batch it is asked for and can fail or block on demand. */
public final class CountingOrigin implements Origin<String> {

  private final Map<String, String> data = new ConcurrentHashMap<>();
  private final List<List<String>> calls = new CopyOnWriteArrayList<>();
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private volatile CountDownLatch gate;

  public CountingOrigin put(String id, String value) {
    data.put(id, value);
    return this;
  }

  public CountingOrigin remove(String id) {
    data.remove(id);
    return this;
  }

  /** Every later call throws {@code e} until {@link #heal()}. */
  public void failWith(RuntimeException e) {
    failure.set(e);
  }

  public void heal() {
    failure.set(null);
  }

  /** Later calls wait until {@link #release()}. */
  public void block() {
    gate = new CountDownLatch(1);
  }

  public void release() {
    CountDownLatch g = gate;
    if (g != null) {
      g.countDown();
    }
  }

  public int calls() {
    return calls.size();
  }

  public List<List<String>> batches() {
    return List.copyOf(calls);
  }

  @Override
  public Map<String, String> loadAll(Collection<String> ids) throws InterruptedException {
    calls.add(new ArrayList<>(ids));
    CountDownLatch g = gate;
    if (g != null && !g.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("test origin was never released");
    }
    RuntimeException e = failure.get();
    if (e != null) {
      throw e;
    }
    Map<String, String> out = new HashMap<>();
    for (String id : ids) {
      String v = data.get(id);
      if (v != null) {
        out.put(id, v);
      }
    }
    return out;
  }
}
