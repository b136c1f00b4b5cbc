package io.warmgate.bench.fleet;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.spanner.v1.ExecuteSqlRequest;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Grpc;
import io.grpc.HandlerRegistry;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The emulator's view of the origin count: a gRPC pass-through in front of the Spanner emulator
 * that forwards every call untouched and counts the SQL queries and the ids bound to their
 * {@code @ids} parameter. Agents connect here instead of to the emulator, so a read the loader did
 * not count (a client retry, a second query) still shows up.
 */
final class SpannerWireCounter implements AutoCloseable {

  private static final String EXECUTE_STREAMING_SQL = "google.spanner.v1.Spanner/ExecuteStreamingSql";
  private static final String EXECUTE_SQL = "google.spanner.v1.Spanner/ExecuteSql";

  private final ManagedChannel emulator;
  private final Server server;
  private final LongAdder queries = new LongAdder();
  private final LongAdder ids = new LongAdder();

  /** Starts forwarding from a free port on 127.0.0.1 to {@code emulatorHost} ({@code host:port}). */
  SpannerWireCounter(String emulatorHost) {
    emulator = Grpc.newChannelBuilder(emulatorHost, InsecureChannelCredentials.create()).build();
    try {
      server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
          .fallbackHandlerRegistry(new Forwarding())
          .build()
          .start();
    } catch (IOException e) {
      emulator.shutdownNow();
      throw new UncheckedIOException("cannot start the Spanner wire counter", e);
    }
  }

  /** The {@code host:port} clients use instead of the emulator's. */
  String host() {
    return "localhost:" + server.getPort();
  }

  long queries() {
    return queries.sum();
  }

  long ids() {
    return ids.sum();
  }

  void reset() {
    queries.reset();
    ids.reset();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    emulator.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private void count(String method, byte[] message) {
    if (!method.equals(EXECUTE_STREAMING_SQL) && !method.equals(EXECUTE_SQL)) {
      return;
    }
    queries.increment();
    try {
      Value bound = ExecuteSqlRequest.parseFrom(message).getParams().getFieldsOrDefault("ids", null);
      if (bound != null && bound.hasListValue()) {
        ids.add(bound.getListValue().getValuesCount());
      }
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("the Spanner client sent a request the wire counter cannot read", e);
    }
  }

  /** Serves every method by forwarding its raw bytes. */
  private final class Forwarding extends HandlerRegistry {
    @Override
    public ServerMethodDefinition<?, ?> lookupMethod(String methodName, String authority) {
      MethodDescriptor<byte[], byte[]> method = MethodDescriptor.<byte[], byte[]>newBuilder()
          .setFullMethodName(methodName)
          .setType(MethodDescriptor.MethodType.UNKNOWN)
          .setRequestMarshaller(RawBytes.INSTANCE)
          .setResponseMarshaller(RawBytes.INSTANCE)
          .build();
      return ServerMethodDefinition.create(method, new Handler(method));
    }
  }

  /**
   * One forwarded call, one message at a time each way. gRPC calls are not thread-safe, and the
   * two directions run on different threads, so every use of a call holds its lock.
   */
  private final class Handler implements ServerCallHandler<byte[], byte[]> {
    private final MethodDescriptor<byte[], byte[]> method;

    Handler(MethodDescriptor<byte[], byte[]> method) {
      this.method = method;
    }

    @Override
    public ServerCall.Listener<byte[]> startCall(ServerCall<byte[], byte[]> client, Metadata headers) {
      ClientCall<byte[], byte[]> upstream = emulator.newCall(method, CallOptions.DEFAULT);
      synchronized (upstream) {
        upstream.start(new ClientCall.Listener<>() {
          @Override
          public void onHeaders(Metadata responseHeaders) {
            synchronized (client) {
              client.sendHeaders(responseHeaders);
            }
          }

          @Override
          public void onMessage(byte[] message) {
            synchronized (client) {
              client.sendMessage(message);
            }
            synchronized (upstream) {
              upstream.request(1);
            }
          }

          @Override
          public void onClose(Status status, Metadata trailers) {
            synchronized (client) {
              client.close(status, trailers);
            }
          }
        }, headers);
        upstream.request(1);
      }
      synchronized (client) {
        client.request(1);
      }
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(byte[] message) {
          count(method.getFullMethodName(), message);
          synchronized (upstream) {
            upstream.sendMessage(message);
          }
          synchronized (client) {
            client.request(1);
          }
        }

        @Override
        public void onHalfClose() {
          synchronized (upstream) {
            upstream.halfClose();
          }
        }

        @Override
        public void onCancel() {
          synchronized (upstream) {
            upstream.cancel("the client cancelled", null);
          }
        }
      };
    }
  }

  private enum RawBytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
