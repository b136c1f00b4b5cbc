package io.warmgate.testing;

import com.google.cloud.spanner.DatabaseClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/** A Spanner client that counts its single-use reads, so a test can assert one query per batch. */
public final class CountingReads {

  private CountingReads() {}

  /**
   * Returns a client that does what {@code real} does and adds one to {@code reads} on each call of
   * a {@code singleUse*} method; exceptions reach the caller unwrapped.
   */
  public static DatabaseClient counting(DatabaseClient real, AtomicInteger reads) {
    return (DatabaseClient) Proxy.newProxyInstance(DatabaseClient.class.getClassLoader(),
        new Class<?>[] {DatabaseClient.class}, (proxy, method, args) -> {
          if (method.getName().startsWith("singleUse")) {
            reads.incrementAndGet();
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
