package io.warmgate.testing;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseAdminClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.InstanceAdminClient;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerOptions;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Prepares an emulator that test code does not start itself (the local demo, the in-cluster
 * end-to-end mode): the instance, and a database holding {@code examples/spanner/schema.sql}.
 */
public final class EmulatorDatabase {

  private EmulatorDatabase() {
  }

  /**
   * Creates the instance and the database (with {@code examples/spanner/schema.sql}) unless they
   * exist.
   *
   * @throws Exception if an admin call fails or takes longer than a minute
   */
  public static void createIfMissing(Spanner spanner, String project, String instance, String database)
      throws Exception {
    InstanceAdminClient instances = spanner.getInstanceAdminClient();
    if (instances.listInstances().streamAll().noneMatch(i -> i.getId().getInstance().equals(instance))) {
      instances.createInstance(InstanceInfo.newBuilder(InstanceId.of(project, instance))
          .setInstanceConfigId(InstanceConfigId.of(project, "emulator-config"))
          .setDisplayName(instance).setNodeCount(1).build()).get(60, TimeUnit.SECONDS);
    }
    DatabaseAdminClient databases = spanner.getDatabaseAdminClient();
    if (databases.listDatabases(instance).streamAll().noneMatch(d -> d.getId().getDatabase().equals(database))) {
      databases.createDatabase(instance, database, SpannerEmulator.schemaStatements()).get(60, TimeUnit.SECONDS);
    }
  }

  /**
   * Applies one DDL {@code statement} to {@code database}; a statement creating what already
   * exists (the emulator answers "Duplicate name") is left as done, so it can run again.
   *
   * @throws Exception if the change fails otherwise or takes longer than a minute
   */
  public static void applyDdl(Spanner spanner, String instance, String database, String statement)
      throws Exception {
    try {
      spanner.getDatabaseAdminClient().updateDatabaseDdl(instance, database, List.of(statement),
          null).get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof SpannerException se)
          || !(se.getErrorCode() == ErrorCode.ALREADY_EXISTS
              || String.valueOf(se.getMessage()).contains("Duplicate name"))) {
        throw e;
      }
    }
  }

  /**
   * Command line: {@code EmulatorDatabase <project> <instance> <database>}, against the emulator
   * named by {@code SPANNER_EMULATOR_HOST} (required).
   */
  public static void main(String[] args) throws Exception {
    String emulator = System.getenv("SPANNER_EMULATOR_HOST");
    if (args.length != 3 || emulator == null || emulator.isBlank()) {
      System.err.println("usage: SPANNER_EMULATOR_HOST=host:port EmulatorDatabase <project> <instance> <database>");
      System.exit(2);
    }
    try (Spanner spanner = SpannerOptions.newBuilder().setProjectId(args[0]).setEmulatorHost(emulator)
        .setCredentials(NoCredentials.getInstance()).build().getService()) {
      createIfMissing(spanner, args[0], args[1], args[2]);
      System.out.printf("database %s/%s/%s ready%n", args[0], args[1], args[2]);
    }
  }
}
