package io.warmgate.operator.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.warmgate.operator.changes.ChangeStreamProgress;
import io.warmgate.operator.gate.DeletedPolicyRule;
import io.warmgate.operator.gate.GateStep;
import io.warmgate.operator.gate.RolloutGate;
import io.warmgate.operator.gate.RolloutView;
import io.warmgate.operator.model.CaCertificateRef;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.SecretKeyRef;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.TlsVerify;
import io.warmgate.operator.model.ValkeyMode;
import io.warmgate.operator.model.ValkeySpec;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.status.Reasons;
import io.warmgate.operator.valkey.AddressAllowlist;
import io.warmgate.operator.valkey.ProbeResult;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyCommands;
import io.warmgate.operator.valkey.ValkeyEndpoint;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a CachePolicy's target and password Secret, checks its Valkey, and reports the outcome
 * as the {@code Ready} and {@code L2Reachable} conditions plus an Event per transition.
 *
 * <p>For a Rollout target it also runs the {@link RolloutGate}, which holds the canary at its
 * gate step until the canary's namespace is warm and reports {@code Warmed}, {@code RolloutHeld},
 * {@code status.gate} and {@code status.namespaces}.
 *
 * <p>With {@code spec.changeStream} it reads the change-stream reader's progress from the same
 * Valkey connection and reports it as {@code status.changeStream} and {@code ChangesFollowed}
 * ({@link ChangeStreamProgress}), on every pass, so as often as Valkey is probed.
 *
 * <p>Reconciles again on every spec change, on changes of the target, and every recheck interval
 * to follow Valkey and the Secrets it names (read by name through {@link SecretReader}, never
 * watched); every {@link #GATE_INTERVAL} while a canary is in
 * progress, so a warm canary is released within about that long. A failing policy never affects
 * another one.
 */
@ControllerConfiguration(name = CachePolicyReconciler.NAME, triggerReconcilerOnAllEvents = true)
public class CachePolicyReconciler implements Reconciler<CachePolicy> {

  public static final String NAME = "cachepolicy";
  /**
   * Finalizer a policy carries only while its gate holds a canary, so that deleting it applies
   * {@link DeletedPolicyRule} (the canary stays held; the Rollout says what to do). A policy that
   * holds nothing has no finalizer and is deleted at once, operator running or not.
   */
  public static final String FINALIZER = "warmgate.io/held-canary";
  /** The finalizer earlier versions kept on every policy; removed when seen. */
  static final String LEGACY_FINALIZER = "cachepolicies.warmgate.io/finalizer";
  static final String TARGET_INDEX = "warmgate.io/target";
  /** Policies by {@code <cacheName>@<Valkey address>}, one entry per address. */
  static final String CACHE_INDEX = "warmgate.io/cache";
  /** How often the gate looks again while a canary is in progress. */
  static final Duration GATE_INTERVAL = Duration.ofSeconds(1);

  /** The gate phases of a canary the gate has not finished with. */
  private static final Set<GatePhase> IN_PROGRESS = Set.of(GatePhase.Waiting, GatePhase.Warming);

  private static final Logger log = LoggerFactory.getLogger(CachePolicyReconciler.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ValkeyClients valkey;
  private final Conditions conditions;
  private final Clock clock;
  private final Duration recheckInterval;
  private final AddressAllowlist allowed;
  private final boolean rolloutsInstalled;
  private final RolloutGate gate;
  private final BooleanSupplier leading;

  private SecretReader secrets;
  private TargetLookup targets;

  /**
   * @param valkey the shared Valkey clients
   * @param clock the clock for condition timestamps
   * @param recheckInterval how often Valkey is probed again while nothing else changes
   * @param allowed the Valkey addresses policies may name; others are refused unprobed
   * @param rolloutsInstalled whether the Argo Rollouts API exists; without it, Rollout targets
   *     are reported as not found instead of watched
   * @param leading whether this replica holds the leader Lease: a replica that lost it writes
   *     nothing more while it shuts down
   */
  public CachePolicyReconciler(ValkeyClients valkey, Clock clock, Duration recheckInterval,
      AddressAllowlist allowed, boolean rolloutsInstalled, BooleanSupplier leading) {
    this.leading = leading;
    this.allowed = allowed;
    this.valkey = valkey;
    this.clock = clock;
    this.conditions = new Conditions(clock);
    this.recheckInterval = recheckInterval;
    this.rolloutsInstalled = rolloutsInstalled;
    this.gate = new RolloutGate(clock, RolloutGate.DEFAULT_AGENT_GRACE, leading);
  }

  @Override
  public List<EventSource<?, CachePolicy>> prepareEventSources(
      EventSourceContext<CachePolicy> context) {
    var policies = context.getPrimaryCache();
    policies.addIndexer(TARGET_INDEX, p -> Optional.ofNullable(p.getSpec())
        .map(CachePolicySpec::getTargetRef)
        .filter(ref -> ref.getKind() != null && ref.getName() != null)
        .map(ref -> List.of(targetKey(p.getMetadata().getNamespace(), ref.getKind().name(),
            ref.getName())))
        .orElse(List.of()));

    policies.addIndexer(CACHE_INDEX, CachePolicyReconciler::cacheKeys);

    List<EventSource<?, CachePolicy>> sources = new ArrayList<>();
    // Secrets are read by name, never watched: see SecretReader.
    secrets = new SecretReader(context.getClient(), clock);

    InformerEventSource<Deployment, CachePolicy> deployments = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Deployment.class, CachePolicy.class)
            .withName("deployments")
            .withNamespacesInheritedFromController()
            .withItemStore(new DeploymentIdentityStore())
            .withSecondaryToPrimaryMapper((Deployment d) -> policiesBy(context, TARGET_INDEX,
                targetKey(d.getMetadata().getNamespace(), "Deployment",
                    d.getMetadata().getName())))
            .build(), context);
    sources.add(deployments);

    InformerEventSource<GenericKubernetesResource, CachePolicy> rollouts = null;
    if (rolloutsInstalled) {
      rollouts = new InformerEventSource<>(InformerEventSourceConfiguration
          .from(new GroupVersionKind(TargetLookup.ROLLOUT_API_VERSION, "Rollout"),
              CachePolicy.class)
          .withName("rollouts")
          .withNamespacesInheritedFromController()
          .withItemStore(TrimmedRollouts.store())
          .withSecondaryToPrimaryMapper((GenericKubernetesResource r) -> policiesBy(context,
              TARGET_INDEX, targetKey(r.getMetadata().getNamespace(), "Rollout",
                  r.getMetadata().getName())))
          .build(), context);
      sources.add(rollouts);
    }
    targets = new TargetLookup(deployments, rollouts);
    return sources;
  }

  @Override
  public UpdateControl<CachePolicy> reconcile(CachePolicy policy, Context<CachePolicy> context) {
    if (!leading.getAsBoolean()) {
      return fenced(policy);
    }
    if (context.isPrimaryResourceDeleted() || context.isPrimaryResourceFinalStateUnknown()) {
      valkey.release(valkeyUser(policy));
      return UpdateControl.noUpdate();
    }
    if (policy.isMarkedForDeletion()) {
      deleting(policy, context);
      return UpdateControl.noUpdate();
    }
    CachePolicyStatus before = copy(policy.getStatus());
    CachePolicyStatus status = copy(policy.getStatus());
    long generation = generationOf(policy);
    List<Conditions.Transition> transitions = new ArrayList<>();

    Optional<CachePolicy> cacheOwner = olderPolicySharingCache(policy, context);
    Check ready = evaluate(policy, status, generation, transitions, cacheOwner);
    // The gate still runs: a Rollout paused at its gate step has no one else to release it.
    boolean gateActive = runGate(policy, status, generation, context, transitions);
    // A budget below the steady origin rate is found on live figures, by the gate.
    Optional<Condition> warmed = Conditions.find(status, Conditions.WARMED);
    if (ready.ok() && warmed.map(c -> Reasons.CANNOT_WARM.equals(c.getReason())).orElse(false)) {
      ready = Check.failed(Reasons.CANNOT_WARM, warmed.get().getMessage());
    }
    set(transitions, status, generation, Conditions.READY, ready.ok(), ready.reason(),
        ready.message());
    followChanges(policy, status, generation, transitions);
    status.setObservedGeneration(generation);
    keepFinalizer(policy, context, Conditions.isTrue(status, Conditions.ROLLOUT_HELD));

    PolicyEvents events = new PolicyEvents(context.getClient(), clock);
    for (Conditions.Transition t : transitions) {
      log.info("CachePolicy {}/{}: {}", policy.getMetadata().getNamespace(),
          policy.getMetadata().getName(), t.current());
      events.transitioned(policy, t);
    }
    if (!leading.getAsBoolean()) {
      // The Lease was lost during this pass: the new leader writes this status.
      return fenced(policy);
    }
    UpdateControl<CachePolicy> control = sameJson(before, status)
        ? UpdateControl.noUpdate()
        : UpdateControl.patchStatus(statusPatch(policy, status));
    return control.rescheduleAfter(gateActive && GATE_INTERVAL.compareTo(recheckInterval) < 0
        ? GATE_INTERVAL : recheckInterval);
  }

  /**
   * Runs the rollout gate when the policy is valid and targets an existing Rollout, and writes
   * its view into {@code status}. The gate records its own Events (on the policy and the Rollout).
   *
   * @return whether a canary is in progress
   */
  private boolean runGate(CachePolicy policy, CachePolicyStatus status, long generation,
      Context<CachePolicy> context, List<Conditions.Transition> transitions) {
    CachePolicySpec spec = policy.getSpec();
    if (spec == null || spec.getTargetRef() == null
        || spec.getTargetRef().getKind() != TargetKind.Rollout
        || !SpecChecks.problems(spec).isEmpty()) {
      return false;
    }
    TargetLookup.Result found = targets.find(policy.getMetadata().getNamespace(),
        spec.getTargetRef());
    Optional<HasMetadata> target = found.target();
    if (target.isEmpty() || !(target.get() instanceof GenericKubernetesResource rollout)) {
      if (target.isEmpty() && Conditions.isTrue(status, Conditions.ROLLOUT_HELD)) {
        // Deleted while held: nothing is held any more, whatever the last pass recorded.
        conditions.set(status, generation, Conditions.ROLLOUT_HELD, Condition.FALSE,
            Reasons.TARGET_NOT_FOUND, found.problem());
        if (status.getGate() != null) {
          status.getGate().setPhase(GatePhase.Idle);
          status.getGate().setMessage(found.problem());
        }
      }
      return false;
    }
    Optional<CachePolicy> older = olderPolicyOf(policy, context);
    if (older.isPresent()) {
      String other = older.get().getMetadata().getNamespace() + "/"
          + older.get().getMetadata().getName();
      String message = "CachePolicy " + other + " targets Rollout "
          + policy.getMetadata().getNamespace() + "/" + spec.getTargetRef().getName()
          + " too and is older, so it gates it and this policy does not act; delete one of them "
          + "or point this one at another Rollout";
      set(transitions, status, generation, Conditions.CONFLICT, Condition.TRUE,
          Reasons.GATED_BY_ANOTHER_POLICY, message);
      conditions.set(status, generation, Conditions.ROLLOUT_HELD, Condition.FALSE,
          Reasons.GATED_BY_ANOTHER_POLICY, message);
      conditions.set(status, generation, Conditions.WARMED, Condition.UNKNOWN,
          Reasons.GATED_BY_ANOTHER_POLICY, message);
      status.setGate(null);
      return false;
    }
    conditions.set(status, generation, Conditions.CONFLICT, Condition.FALSE, Reasons.SOLE_POLICY,
        "no older CachePolicy targets Rollout " + policy.getMetadata().getNamespace() + "/"
            + spec.getTargetRef().getName());
    ValkeyCommands connection = null;
    String problem = null;
    if (Conditions.isTrue(status, Conditions.L2_REACHABLE)) {
      try {
        connection = valkey.commands(valkeyUser(policy));
      } catch (RuntimeException e) {
        problem = e.getMessage();
      }
    } else {
      problem = Conditions.find(status, Conditions.L2_REACHABLE).map(Condition::getMessage)
          .orElse("Valkey was not checked");
    }
    // A policy gates this Rollout again: what a deleted one left on it no longer applies.
    new DeletedPolicyRule(context.getClient(), clock).clear(rollout);
    RolloutGate.Outcome outcome =
        gate.run(context.getClient(), policy, rollout, connection, problem);
    status.setGate(outcome.gate());
    status.setKeySpaces(outcome.keySpaces());
    if (outcome.warmed() != null) {
      conditions.set(status, generation, Conditions.WARMED, outcome.warmed().status(),
          outcome.warmed().reason(), outcome.warmed().message());
    }
    if (outcome.held() != null) {
      conditions.set(status, generation, Conditions.ROLLOUT_HELD, outcome.held().status(),
          outcome.held().reason(), outcome.held().message());
    }
    return outcome.active();
  }

  /**
   * Reports the change-stream reader's progress when {@code spec.changeStream} is set, read through
   * the connection the probe opened; removes {@code status.changeStream} and
   * {@code ChangesFollowed} when it is not.
   */
  private void followChanges(CachePolicy policy, CachePolicyStatus status, long generation,
      List<Conditions.Transition> transitions) {
    CachePolicySpec spec = policy.getSpec();
    ChangeStreamSpec changes = spec == null ? null : spec.getChangeStream();
    if (changes == null) {
      status.setChangeStream(null);
      Conditions.remove(status, Conditions.CHANGES_FOLLOWED);
      return;
    }
    ChangeStreamProgress.Outcome outcome;
    if (!SpecChecks.problems(spec).isEmpty()) {
      outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
          "the spec is invalid");
    } else if (!Conditions.isTrue(status, Conditions.L2_REACHABLE)) {
      outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
          Conditions.find(status, Conditions.L2_REACHABLE).map(Condition::getMessage)
              .orElse("Valkey was not checked"));
    } else {
      try {
        outcome = ChangeStreamProgress.read(
            valkey.commands(valkeyUser(policy)).sync(),
            spec.getCacheName(), changes, clock.instant());
      } catch (RuntimeException e) {
        log.debug("CachePolicy {}/{}: reading the change stream's progress failed",
            policy.getMetadata().getNamespace(), policy.getMetadata().getName(), e);
        outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
            e.getMessage());
      }
    }
    status.setChangeStream(outcome.status());
    set(transitions, status, generation, Conditions.CHANGES_FOLLOWED, outcome.condition(),
        outcome.reason(), outcome.message());
  }

  /**
   * The oldest other policy (by creation time, then name) that targets the same Rollout and is
   * older than {@code policy}; empty when {@code policy} is the oldest. Policies being deleted
   * do not count.
   */
  private static Optional<CachePolicy> olderPolicyOf(CachePolicy policy,
      Context<CachePolicy> context) {
    Comparator<CachePolicy> age = Comparator
        .comparing((CachePolicy p) -> createdAt(p))
        .thenComparing(p -> p.getMetadata().getName());
    return context.getPrimaryCache().byIndex(TARGET_INDEX,
            targetKey(policy.getMetadata().getNamespace(), TargetKind.Rollout.name(),
                policy.getSpec().getTargetRef().getName())).stream()
        .filter(p -> !p.getMetadata().getName().equals(policy.getMetadata().getName()))
        .filter(p -> !p.isMarkedForDeletion())
        .filter(p -> age.compare(p, policy) < 0)
        .min(age);
  }

  private static Instant createdAt(CachePolicy policy) {
    String created = policy.getMetadata().getCreationTimestamp();
    try {
      return created == null ? Instant.MAX : Instant.parse(created);
    } catch (java.time.format.DateTimeParseException e) {
      return Instant.MAX;
    }
  }

  /**
   * The oldest other policy (by creation time, then namespace and name) that uses the same
   * {@code cacheName} on a Valkey address of {@code policy} and is older than it; empty when
   * there is none. Such policies read and write the same keys (values, hot set, warm jobs,
   * stats): pods of one could serve the other's data. Policies being deleted do not count.
   */
  private static Optional<CachePolicy> olderPolicySharingCache(CachePolicy policy,
      Context<CachePolicy> context) {
    Comparator<CachePolicy> age = Comparator
        .comparing((CachePolicy p) -> createdAt(p))
        .thenComparing(p -> p.getMetadata().getNamespace())
        .thenComparing(p -> p.getMetadata().getName());
    ResourceID self = ResourceID.fromResource(policy);
    return cacheKeys(policy).stream()
        .flatMap(key -> context.getPrimaryCache().byIndex(CACHE_INDEX, key).stream())
        .filter(p -> !ResourceID.fromResource(p).equals(self))
        .filter(p -> !p.isMarkedForDeletion())
        .filter(p -> age.compare(p, policy) < 0)
        .min(age);
  }

  private static List<String> cacheKeys(CachePolicy policy) {
    CachePolicySpec spec = policy.getSpec();
    if (spec == null || spec.getCacheName() == null || spec.getValkey() == null
        || spec.getValkey().getAddresses() == null) {
      return List.of();
    }
    return spec.getValkey().getAddresses().stream().filter(Objects::nonNull)
        .map(address -> spec.getCacheName() + "@" + address.trim().toLowerCase(Locale.ROOT))
        .distinct().toList();
  }

  /** Runs the checks in order and returns what Ready should say. */
  private Check evaluate(CachePolicy policy, CachePolicyStatus status, long generation,
      List<Conditions.Transition> transitions, Optional<CachePolicy> cacheOwner) {
    String namespace = policy.getMetadata().getNamespace();
    String user = valkeyUser(policy);
    CachePolicySpec spec = policy.getSpec();

    List<String> problems = SpecChecks.problems(spec);
    if (!problems.isEmpty()) {
      valkey.release(user);
      String message = "Invalid spec: " + String.join("; ", problems);
      notChecked(transitions, status, generation, "the spec is invalid");
      return Check.failed(Reasons.INVALID_SPEC, message);
    }

    ValkeySpec v = spec.getValkey();
    List<String> refused = v.getAddresses().stream().filter(a -> !allowed.allows(a)).toList();
    if (!refused.isEmpty()) {
      // Never connect: the operator must not become a probe of services a policy names.
      valkey.release(user);
      String message = "spec.valkey.addresses " + refused + (refused.size() == 1 ? " is" : " are")
          + " not allowed by the operator's address allowlist ["
          + allowed.describe() + "]; name the in-cluster Valkey Service, such as "
          + "valkey." + namespace + ".svc:6379, or ask the operator's administrator to add a "
          + "pattern (chart value valkey.allowedAddresses)";
      set(transitions, status, generation, Conditions.L2_REACHABLE, Condition.FALSE,
          Reasons.ADDRESS_NOT_ALLOWED, message);
      return Check.failed(Reasons.ADDRESS_NOT_ALLOWED, message);
    }
    SecretValue password = secretValue(namespace, secretRef(policy).orElse(null),
        "spec.valkey.passwordSecretKeyRef", "the Valkey password");
    CaCertificateRef caRef = Boolean.TRUE.equals(v.getTls()) ? v.getTlsCaSecretRef() : null;
    SecretValue ca = secretValue(namespace,
        caRef == null ? null : new SecretKeyRef(caRef.getName(), caRef.getKey()),
        "spec.valkey.tlsCaSecretRef", "the PEM certificates of the CA that signed the servers'");
    Check secret = !password.check().ok() ? password.check() : ca.check();

    Check l2;
    Check protectedL2 = Check.passed();
    if (secret.ok()) {
      ProbeResult probe = valkey.probe(user, new ValkeyEndpoint(v.getAddresses(),
          v.getMode() == ValkeyMode.Cluster, Boolean.TRUE.equals(v.getTls()),
          v.getTlsVerify() != TlsVerify.CA, ca.value() == null ? null : new String(ca.value()),
          v.getUsername(), password.value()));
      set(transitions, status, generation, Conditions.L2_REACHABLE, probe.reachable(),
          probe.reason(), probe.message());
      l2 = probe.reachable() ? Check.passed() : Check.failed(probe.reason(), probe.message());
      if (probe.unprotected() != null) {
        protectedL2 = Check.failed(Reasons.PASSWORD_NOT_REQUIRED, probe.unprotected());
      }
    } else {
      valkey.release(user);
      notChecked(transitions, status, generation, secret.message());
      l2 = Check.passed();
    }

    TargetRef targetRef = spec.getTargetRef();
    TargetLookup.Result target = targets.find(namespace, targetRef);
    Check targetCheck = target.target().isPresent() ? Check.passed()
        : Check.failed(Reasons.TARGET_NOT_FOUND, target.problem());

    Check gateStep = Check.passed();
    if (target.target().orElse(null) instanceof GenericKubernetesResource rollout
        && targetRef.getKind() == TargetKind.Rollout) {
      WarmupSpec warmup = spec.getWarmup();
      GateStep step = GateStep.resolve(RolloutView.of(rollout).steps(),
          warmup == null ? null : warmup.getGateStep());
      if (!step.found()) {
        gateStep = Check.failed(Reasons.NO_GATE_STEP, "Rollout " + namespace + "/"
            + targetRef.getName() + " cannot be held: " + step.problem());
      }
    }
    List<String> cannotWork = SpecChecks.cannotWork(spec);
    Check warmable = cannotWork.isEmpty() ? Check.passed()
        : Check.failed(Reasons.CANNOT_WARM, "This policy can never warm a canary: "
            + String.join("; ", cannotWork));

    Check ownCache = cacheOwner.map(other -> Check.failed(Reasons.CACHE_NAME_IN_USE,
        "CachePolicy " + other.getMetadata().getNamespace() + "/" + other.getMetadata().getName()
            + " is older and uses cacheName '" + spec.getCacheName() + "' on the same Valkey ("
            + String.join(", ", other.getSpec().getValkey().getAddresses()) + "): both would read "
            + "and write the same keys (values, hot set, warm jobs), so pods of one could serve "
            + "the other's data; give this policy another spec.cacheName or point "
            + "spec.valkey.addresses at another Valkey"))
        .orElse(Check.passed());

    for (Check check : List.of(secret, l2, protectedL2, ownCache, targetCheck, gateStep,
        warmable)) {
      if (!check.ok()) {
        return check;
      }
    }
    return Check.ok(Reasons.RECONCILED, "Target " + targetRef.getKind() + " " + namespace + "/"
        + targetRef.getName() + " found and Valkey reachable at "
        + String.join(", ", spec.getValkey().getAddresses()));
  }

  /** Leaves {@code policy} to the leader: no write, no next pass from this replica. */
  private static UpdateControl<CachePolicy> fenced(CachePolicy policy) {
    log.debug("Not reconciling CachePolicy {}/{}: this replica no longer holds the leader Lease",
        policy.getMetadata().getNamespace(), policy.getMetadata().getName());
    return UpdateControl.noUpdate();
  }

  @Override
  public ErrorStatusUpdateControl<CachePolicy> updateErrorStatus(CachePolicy policy,
      Context<CachePolicy> context, Exception e) {
    if (!leading.getAsBoolean()) {
      fenced(policy);
      return ErrorStatusUpdateControl.noStatusUpdate();
    }
    if (e instanceof KubernetesClientException k && k.getCode() == 404) {
      // Deleted while this pass ran: nothing left to report on; the delete event follows.
      log.debug("CachePolicy {}/{} was deleted during its reconcile",
          policy.getMetadata().getNamespace(), policy.getMetadata().getName(), e);
      return ErrorStatusUpdateControl.noStatusUpdate();
    }
    log.error("Reconciling CachePolicy {}/{} failed", policy.getMetadata().getNamespace(),
        policy.getMetadata().getName(), e);
    Duration next = nextPassAfterFailure(policy.getStatus());
    CachePolicyStatus status = copy(policy.getStatus());
    long generation = generationOf(policy);
    conditions.set(status, generation, Conditions.READY, false, Reasons.RECONCILE_FAILED,
        "The operator failed to reconcile this policy: " + e.getMessage()
            + "; see the operator log. It tries again every " + next.toMillis() / 1000.0 + " s.")
        .ifPresent(t -> {
          try {
            new PolicyEvents(context.getClient(), clock).transitioned(policy, t);
          } catch (RuntimeException eventFailed) {
            // The API server that failed the pass may refuse the Event too; the next pass matters.
            log.debug("Recording the failure of CachePolicy {}/{} failed",
                policy.getMetadata().getNamespace(), policy.getMetadata().getName(), eventFailed);
          }
        });
    status.setObservedGeneration(generation);
    // No JOSDK retry: its backoff ends after a few attempts, and then nothing would come back to
    // a held canary until an unrelated event. A fixed reschedule brings it back every time.
    return ErrorStatusUpdateControl.patchStatus(statusPatch(policy, status)).withNoRetry()
        .rescheduleAfter(next);
  }

  /**
   * When a failed pass is tried again: every {@link #GATE_INTERVAL} while a canary is in progress
   * (held, or not yet at its gate step), whatever failed, so that a canary warm by the time the
   * API server or Valkey is back is released within one gate interval, and {@code maxWait} and
   * {@code onTimeout} still apply; every recheck interval otherwise.
   */
  Duration nextPassAfterFailure(CachePolicyStatus status) {
    boolean inProgress = status != null && (Conditions.isTrue(status, Conditions.ROLLOUT_HELD)
        || (status.getGate() != null && IN_PROGRESS.contains(status.getGate().getPhase())));
    return inProgress && GATE_INTERVAL.compareTo(recheckInterval) < 0 ? GATE_INTERVAL
        : recheckInterval;
  }

  /**
   * The policy is being deleted: a canary it holds stays held, and {@link DeletedPolicyRule}
   * annotates the Rollout and records an Event saying what to do; then the finalizers go.
   */
  private void deleting(CachePolicy policy, Context<CachePolicy> context) {
    CachePolicySpec spec = policy.getSpec();
    if (hasFinalizer(policy, FINALIZER) && spec != null && spec.getTargetRef() != null
        && spec.getTargetRef().getKind() == TargetKind.Rollout) {
      HasMetadata target = targets.find(policy.getMetadata().getNamespace(), spec.getTargetRef())
          .target().orElse(null);
      if (new DeletedPolicyRule(context.getClient(), clock).apply(policy,
          target instanceof GenericKubernetesResource rollout ? rollout : null)) {
        log.warn("CachePolicy {}/{} deleted while holding a canary of Rollout {}; it stays held",
            policy.getMetadata().getNamespace(), policy.getMetadata().getName(),
            spec.getTargetRef().getName());
      }
    }
    valkey.release(valkeyUser(policy));
    keepFinalizer(policy, context, false);
  }

  /** Adds {@link #FINALIZER} while {@code holding}, else removes it (and the legacy one). */
  private static void keepFinalizer(CachePolicy policy, Context<CachePolicy> context,
      boolean holding) {
    boolean has = hasFinalizer(policy, FINALIZER);
    boolean legacy = hasFinalizer(policy, LEGACY_FINALIZER);
    if (has == holding && !legacy) {
      return;
    }
    try {
      context.getClient().resources(CachePolicy.class)
          .inNamespace(policy.getMetadata().getNamespace())
          .withName(policy.getMetadata().getName()).edit(p -> {
            List<String> finalizers = new ArrayList<>(p.getMetadata().getFinalizers() == null
                ? List.of() : p.getMetadata().getFinalizers());
            finalizers.remove(LEGACY_FINALIZER);
            finalizers.remove(FINALIZER);
            if (holding) {
              finalizers.add(FINALIZER);
            }
            p.getMetadata().setFinalizers(finalizers);
            return p;
          });
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
        throw e;
      }
    }
  }

  private static boolean hasFinalizer(CachePolicy policy, String name) {
    List<String> finalizers = policy.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(name);
  }

  private void notChecked(List<Conditions.Transition> transitions, CachePolicyStatus status,
      long generation, String why) {
    set(transitions, status, generation, Conditions.L2_REACHABLE,
        Condition.UNKNOWN, Reasons.NOT_CHECKED,
        "Valkey was not checked: " + why);
  }

  private void set(List<Conditions.Transition> transitions, CachePolicyStatus status,
      long generation, String type, boolean value, String reason, String message) {
    conditions.set(status, generation, type, value, reason, message).ifPresent(transitions::add);
  }

  private void set(List<Conditions.Transition> transitions, CachePolicyStatus status,
      long generation, String type, String value, String reason, String message) {
    conditions.set(status, generation, type, value, reason, message).ifPresent(transitions::add);
  }

  private static CachePolicy statusPatch(CachePolicy policy, CachePolicyStatus status) {
    CachePolicy patch = new CachePolicy();
    patch.setMetadata(new ObjectMetaBuilder()
        .withName(policy.getMetadata().getName())
        .withNamespace(policy.getMetadata().getNamespace())
        .build());
    patch.setStatus(status);
    return patch;
  }

  private static Optional<SecretKeyRef> secretRef(CachePolicy policy) {
    return Optional.ofNullable(policy.getSpec()).map(CachePolicySpec::getValkey)
        .map(ValkeySpec::getPasswordSecretKeyRef).filter(ref -> ref.getName() != null);
  }

  /** A value read from a Secret key, or the check that says why it could not be. */
  private record SecretValue(char[] value, Check check) {}

  /**
   * The value under {@code ref} in the namespace's Secrets; no value and a passed check when
   * {@code ref} is null.
   */
  private SecretValue secretValue(String namespace, SecretKeyRef ref, String field, String what) {
    if (ref == null) {
      return new SecretValue(null, Check.passed());
    }
    SecretReader.Read read = secrets.read(namespace, ref.getName(), ref.getKey());
    return switch (read.found()) {
      case VALUE -> new SecretValue(read.value(), Check.passed());
      case NO_SECRET -> new SecretValue(null, Check.failed(Reasons.SECRET_NOT_FOUND, "Secret "
          + namespace + "/" + ref.getName() + " named by " + field + " does not exist; create it "
          + "with " + what + " under key '" + ref.getKey() + "'"));
      case NO_KEY -> new SecretValue(null, Check.failed(Reasons.SECRET_KEY_NOT_FOUND, "Secret "
          + namespace + "/" + ref.getName() + " has no key '" + ref.getKey() + "'; add it or "
          + "fix " + field + ".key"));
      case FORBIDDEN -> new SecretValue(null, Check.failed(Reasons.SECRET_FORBIDDEN, "The "
          + "operator may not read Secret " + namespace + "/" + ref.getName() + " named by "
          + field + ": it reads Secrets only in the namespaces it is granted get on; install "
          + "the chart with this namespace in watchNamespaces or rbac.secretNamespaces"));
    };
  }

  private static Set<ResourceID> policiesBy(EventSourceContext<CachePolicy> context, String index,
      String key) {
    return context.getPrimaryCache().byIndex(index, key).stream()
        .map(ResourceID::fromResource).collect(Collectors.toSet());
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static String targetKey(String namespace, String kind, String name) {
    return kind + ":" + namespace + "/" + name;
  }

  private static long generationOf(HasMetadata resource) {
    Long generation = resource.getMetadata().getGeneration();
    return generation == null ? 0L : generation;
  }

  private static CachePolicyStatus copy(CachePolicyStatus status) {
    return status == null ? new CachePolicyStatus()
        : JSON.convertValue(status, CachePolicyStatus.class);
  }

  private static boolean sameJson(CachePolicyStatus a, CachePolicyStatus b) {
    return JSON.valueToTree(a).equals(JSON.valueToTree(b));
  }

  /** The outcome of one check: passed, or failed with a reason and a message. */
  private record Check(boolean ok, String reason, String message) {
    static Check passed() {
      return new Check(true, null, null);
    }

    static Check ok(String reason, String message) {
      return new Check(true, reason, message);
    }

    static Check failed(String reason, String message) {
      return new Check(false, reason, message);
    }
  }

  /** The name {@link ValkeyClients} keeps this policy's connection under. */
  private static String valkeyUser(CachePolicy policy) {
    return ValkeyClients.user(policy.getMetadata().getNamespace(),
        policy.getMetadata().getName());
  }
}
