package io.warmgate.operator.policy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.warmgate.operator.changes.ChangeStreamProgress;
import io.warmgate.operator.gate.DeletedPolicyRule;
import io.warmgate.operator.gate.GateStep;
import io.warmgate.operator.gate.GateStyle;
import io.warmgate.operator.gate.NewPodsGate;
import io.warmgate.operator.gate.RolloutGate;
import io.warmgate.operator.gate.RolloutView;
import io.warmgate.operator.model.CachePolicy;
import io.warmgate.operator.model.CachePolicySpec;
import io.warmgate.operator.model.CachePolicyStatus;
import io.warmgate.operator.model.ChangeStreamSpec;
import io.warmgate.operator.model.Condition;
import io.warmgate.operator.model.GatePhase;
import io.warmgate.operator.model.TargetKind;
import io.warmgate.operator.model.TargetRef;
import io.warmgate.operator.model.WarmupSpec;
import io.warmgate.operator.readiness.WarmPods;
import io.warmgate.operator.revision.NewPods;
import io.warmgate.operator.revision.Revisions;
import io.warmgate.operator.status.Conditions;
import io.warmgate.operator.status.Reasons;
import io.warmgate.operator.valkey.AddressAllowlist;
import io.warmgate.operator.valkey.ValkeyClients;
import io.warmgate.operator.valkey.ValkeyCommands;
import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a CachePolicy's target and password Secret, checks its Valkey, and reports the outcome
 * as the {@code Ready} and {@code L2Reachable} conditions plus an Event per transition.
 *
 * <p>{@link #reconcile} is the table of contents of one pass: check what {@code Ready} says
 * ({@link ValkeyCheck}, {@link PolicyConflicts}, target, warm-up rules), run the gate, report
 * {@code Ready}, follow the change stream, keep the finalizer, record the Events, patch the
 * status. What the steps share lives in one {@link PolicyPass}.
 *
 * <p>For a Rollout target it also runs the {@link RolloutGate}, which holds the canary at its
 * gate step until the canary's namespace is warm and reports {@code Warmed}, {@code RolloutHeld},
 * {@code status.gate} and {@code status.namespaces}. For a Deployment or StatefulSet target it
 * runs the
 * {@link NewPodsGate} and sets its pods' {@code warmgate.io/warm} readiness condition from that
 * verdict ({@link WarmPods}, {@link PodReadiness}).
 *
 * <p>With {@code spec.changeStream} it reads the change-stream reader's progress from the same
 * Valkey connection and reports it as {@code status.changeStream} and {@code ChangesFollowed}
 * ({@link ChangeStreamProgress}), on every pass, so as often as Valkey is probed.
 *
 * <p>Reconciles again on every spec change, on changes of the target, when the outcome of its
 * Valkey endpoint's probe changes ({@link ValkeyChanges}: one probe per endpoint every recheck
 * interval, however many policies share it), when a Secret it names changes ({@link
 * SecretChanges}: one {@code get} per Secret every recheck interval), every
 * {@link #GATE_INTERVAL} while a canary is in
 * progress, so a warm canary is released within about that long, and every recheck interval
 * while the policy is not settled ({@link #settled}): not Ready (a Secret it names may appear,
 * and Secrets are read by name through {@link SecretReader}, never watched), in conflict with
 * another policy, or following a change stream whose progress lives only in Valkey. A settled
 * policy has no timer: nothing of it runs while nothing changes. A failing policy never affects
 * another one.
 */
@ControllerConfiguration(name = CachePolicyReconciler.NAME, triggerReconcilerOnAllEvents = true)
public class CachePolicyReconciler implements Reconciler<CachePolicy> {

  public static final String NAME = "cachepolicy";
  /**
   * Finalizer a policy carries only while its gate holds a canary, so that deleting it applies
   * {@link DeletedPolicyRule} (the canary stays held; the Rollout says what to do), or while pods
   * of its Deployment or StatefulSet wait on their readiness gate, so that deleting it lets them in
   * ({@link WarmPods#releaseAll}). A policy that holds nothing has no finalizer and is deleted at
   * once, operator running or not.
   */
  public static final String FINALIZER = "warmgate.io/held-canary";
  /** The finalizer earlier versions kept on every policy; removed when seen. */
  static final String LEGACY_FINALIZER = "cachepolicies.warmgate.io/finalizer";
  /** How often the gate looks again while a canary is in progress. */
  static final Duration GATE_INTERVAL = Duration.ofSeconds(1);
  /**
   * Items per page of an informer's list, as client-go's reflectors page theirs: a cluster's
   * 20,000 Deployments listed in one response are some hundreds of MiB of objects before the
   * store keeps their identity, past the chart's heap; a page of 500 is a few MiB.
   */
  public static final long LIST_PAGE = 500;

  /** The gate phases of a canary the gate has not finished with. */
  private static final Set<GatePhase> IN_PROGRESS = Set.of(GatePhase.Waiting, GatePhase.Warming);

  private static final Logger log = LoggerFactory.getLogger(CachePolicyReconciler.class);

  private final ValkeyClients valkey;
  private final Conditions conditions;
  private final Clock clock;
  private final Duration recheckInterval;
  private final AddressAllowlist allowed;
  private final boolean rolloutsInstalled;
  private final RolloutGate gate;
  private final NewPodsGate newPodsGate;
  private final WarmPods warmPods;
  private final BooleanSupplier leading;

  private ValkeyCheck valkeyCheck;
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
    this.newPodsGate = new NewPodsGate(clock, RolloutGate.DEFAULT_AGENT_GRACE);
    this.warmPods = new WarmPods(clock);
  }

  @Override
  public List<EventSource<?, CachePolicy>> prepareEventSources(
      EventSourceContext<CachePolicy> context) {
    var policies = context.getPrimaryCache();
    PolicyConflicts.addIndexes(policies);

    List<EventSource<?, CachePolicy>> sources = new ArrayList<>();
    ValkeyChanges valkeyChanges = new ValkeyChanges();
    sources.add(valkeyChanges);
    valkey.watch(recheckInterval, valkeyChanges::changed);
    // Secrets are read by name, never watched: see SecretReader; SecretChanges reads them again.
    SecretReader secrets = new SecretReader(context.getClient(), clock);
    valkeyCheck = new ValkeyCheck(valkey, allowed, new SecretValues(secrets));
    sources.add(new SecretChanges(secrets, policies, recheckInterval));

    InformerEventSource<Deployment, CachePolicy> deployments = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Deployment.class, CachePolicy.class)
            .withName("deployments")
            .withInformerListLimit(LIST_PAGE)
            .withNamespacesInheritedFromController()
            .withItemStore(IdentityStore.deployments())
            .withSecondaryToPrimaryMapper((Deployment d) -> PolicyConflicts.targeting(policies,
                "Deployment", d.getMetadata().getNamespace(), d.getMetadata().getName()))
            .build(), context);
    sources.add(deployments);
    InformerEventSource<StatefulSet, CachePolicy> statefulSets = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(StatefulSet.class, CachePolicy.class)
            .withName("statefulsets")
            .withInformerListLimit(LIST_PAGE)
            .withNamespacesInheritedFromController()
            .withItemStore(IdentityStore.statefulSets())
            .withSecondaryToPrimaryMapper((StatefulSet s) -> PolicyConflicts.targeting(policies,
                "StatefulSet", s.getMetadata().getNamespace(), s.getMetadata().getName()))
            .build(), context);
    sources.add(statefulSets);

    InformerEventSource<GenericKubernetesResource, CachePolicy> rollouts = null;
    if (rolloutsInstalled) {
      rollouts = new InformerEventSource<>(InformerEventSourceConfiguration
          .from(new GroupVersionKind(TargetLookup.ROLLOUT_API_VERSION, "Rollout"),
              CachePolicy.class)
          .withName("rollouts")
          .withInformerListLimit(LIST_PAGE)
          .withNamespacesInheritedFromController()
          .withItemStore(TrimmedRollouts.store())
          .withSecondaryToPrimaryMapper((GenericKubernetesResource r) -> PolicyConflicts
              .targeting(policies, "Rollout", r.getMetadata().getNamespace(),
                  r.getMetadata().getName()))
          .build(), context);
      sources.add(rollouts);
    }
    targets = new TargetLookup(deployments, statefulSets, rollouts);
    return sources;
  }

  @Override
  public UpdateControl<CachePolicy> reconcile(CachePolicy policy, Context<CachePolicy> context) {
    if (!leading.getAsBoolean()) {
      return fenced(policy);
    }
    if (context.isPrimaryResourceDeleted() || context.isPrimaryResourceFinalStateUnknown()) {
      valkey.release(PolicyPass.valkeyUser(policy));
      return UpdateControl.noUpdate();
    }
    if (policy.isMarkedForDeletion()) {
      deleting(policy, context);
      return UpdateControl.noUpdate();
    }
    PolicyPass pass = PolicyPass.start(policy, context, conditions);
    Check ready = checkReady(pass);
    // The gate still runs: a Rollout paused at its gate step has no one else to release it.
    boolean canaryActive = runGate(pass);
    reportReady(pass, ready);
    followChanges(pass);
    pass.status().setObservedGeneration(pass.generation());
    keepFinalizer(policy, context, Conditions.isTrue(pass.status(), Conditions.ROLLOUT_HELD));
    recordTransitions(pass);
    return finish(pass, canaryActive);
  }

  /** What {@code Ready} says, in order of importance: spec, Valkey, cache, target, warmability. */
  private Check checkReady(PolicyPass pass) {
    if (!pass.specValid()) {
      valkeyCheck.notChecked(pass, "the spec is invalid");
      return Check.failed(Reasons.INVALID_SPEC,
          "Invalid spec: " + String.join("; ", pass.specProblems()));
    }
    CachePolicySpec spec = pass.spec();
    return Check.firstFailure(valkeyCheck.check(pass), checkOwnCache(pass), checkTarget(pass),
        checkWarmable(spec)).orElseGet(() -> Check.ok(Reasons.RECONCILED, "Target "
            + spec.getTargetRef().getKind() + " " + pass.namespace() + "/"
            + spec.getTargetRef().getName() + " found and Valkey reachable at "
            + String.join(", ", spec.getValkey().getAddresses())));
  }

  /** Fails when an older policy uses the same cache on the same Valkey. */
  private static Check checkOwnCache(PolicyPass pass) {
    return PolicyConflicts.olderOnSameCache(pass.policy(), pass.context().getPrimaryCache())
        .map(older -> Check.failed(Reasons.CACHE_NAME_IN_USE,
            PolicyConflicts.cacheInUse(pass.policy(), older)))
        .orElse(Check.passed());
  }

  /** Fails when the target does not exist, or is a Rollout the gate cannot hold. */
  private Check checkTarget(PolicyPass pass) {
    TargetRef ref = pass.spec().getTargetRef();
    TargetLookup.Result target = targets.find(pass.namespace(), ref);
    if (target.target().isEmpty()) {
      return Check.failed(Reasons.TARGET_NOT_FOUND, target.problem());
    }
    if (target.target().get() instanceof GenericKubernetesResource rollout
        && ref.getKind() == TargetKind.Rollout) {
      WarmupSpec warmup = pass.spec().getWarmup();
      GateStep step = GateStep.resolve(RolloutView.of(rollout).steps(),
          warmup == null ? null : warmup.getGateStep());
      if (style(rollout, warmup) == GateStyle.NONE) {
        return Check.failed(Reasons.NO_GATE_STEP, "Rollout " + pass.namespace() + "/"
            + ref.getName() + " cannot be held: " + GateStyle.noGate(step));
      }
    }
    return Check.passed();
  }

  /** How {@code rollout}'s new pods are gated under {@code warmup} (null: defaults). */
  private static GateStyle style(GenericKubernetesResource rollout, WarmupSpec warmup) {
    Integer configured = warmup == null ? null : warmup.getGateStep();
    return GateStyle.of(rollout, GateStep.resolve(RolloutView.of(rollout).steps(), configured),
        configured != null);
  }

  /** Fails when the warm-up rules can never warm a canary. */
  private static Check checkWarmable(CachePolicySpec spec) {
    List<String> cannotWork = SpecChecks.cannotWork(spec);
    return cannotWork.isEmpty() ? Check.passed()
        : Check.failed(Reasons.CANNOT_WARM, "This policy can never warm a canary: "
            + String.join("; ", cannotWork));
  }

  /**
   * Runs the rollout gate when the policy is valid and targets an existing Rollout, and writes
   * its view into the pass's status. The gate records its own Events (on the policy and the
   * Rollout).
   *
   * @return whether a canary is in progress
   */
  private boolean runGate(PolicyPass pass) {
    CachePolicySpec spec = pass.spec();
    if (spec == null || spec.getTargetRef() == null || !pass.specValid()) {
      return false;
    }
    CachePolicyStatus status = pass.status();
    TargetLookup.Result found = targets.find(pass.namespace(), spec.getTargetRef());
    Optional<HasMetadata> target = found.target();
    if (target.isPresent() && spec.getTargetRef().getKind() == TargetKind.Deployment) {
      return conflictFree(pass) && runNewPodsGate(pass, () -> Revisions.ofDeployment(
          pass.context().getClient(), pass.namespace(), spec.getTargetRef().getName())
          .orElse(null));
    }
    if (target.isPresent() && spec.getTargetRef().getKind() == TargetKind.StatefulSet) {
      return conflictFree(pass) && runNewPodsGate(pass, () -> Revisions.ofStatefulSet(
          pass.context().getClient(), pass.namespace(), spec.getTargetRef().getName())
          .orElse(null));
    }
    if (target.isEmpty() || !(target.get() instanceof GenericKubernetesResource rollout)) {
      if (target.isEmpty() && Conditions.isTrue(status, Conditions.ROLLOUT_HELD)) {
        // Deleted while held: nothing is held any more, whatever the last pass recorded.
        pass.set(Conditions.ROLLOUT_HELD, Condition.FALSE, Reasons.TARGET_NOT_FOUND,
            found.problem());
        if (status.getGate() != null) {
          status.getGate().setPhase(GatePhase.Idle);
          status.getGate().setMessage(found.problem());
        }
      }
      return false;
    }
    if (!conflictFree(pass)) {
      return false;
    }
    if (style(rollout, spec.getWarmup()) == GateStyle.ANALYSIS) {
      return runNewPodsGate(pass, () -> Revisions.ofRollout(pass.context().getClient(), rollout));
    }
    Connection valkeyNow = connection(pass);
    // A policy gates this Rollout again: what a deleted one left on it no longer applies.
    new DeletedPolicyRule(pass.context().getClient(), clock).clear(rollout);
    RolloutGate.Outcome outcome = gate.run(pass.context().getClient(), pass.policy(), rollout,
        valkeyNow.commands(), valkeyNow.problem());
    status.setGate(outcome.gate());
    status.setKeySpaces(outcome.keySpaces());
    if (outcome.warmed() != null) {
      pass.set(Conditions.WARMED, outcome.warmed().status(), outcome.warmed().reason(),
          outcome.warmed().message());
    }
    if (outcome.held() != null) {
      pass.set(Conditions.ROLLOUT_HELD, outcome.held().status(), outcome.held().reason(),
          outcome.held().message());
    }
    return outcome.active();
  }

  /**
   * Whether no older policy gates the same target; when one does, says so in the pass's status.
   */
  private static boolean conflictFree(PolicyPass pass) {
    Optional<CachePolicy> older = PolicyConflicts.olderOnSameTarget(pass.policy(),
        pass.context().getPrimaryCache());
    if (older.isPresent()) {
      String message = PolicyConflicts.gatedByOlder(pass.policy(), older.get());
      pass.report(Conditions.CONFLICT, Condition.TRUE, Reasons.GATED_BY_ANOTHER_POLICY, message);
      pass.set(Conditions.ROLLOUT_HELD, Condition.FALSE, Reasons.GATED_BY_ANOTHER_POLICY, message);
      pass.set(Conditions.WARMED, Condition.UNKNOWN, Reasons.GATED_BY_ANOTHER_POLICY, message);
      pass.status().setGate(null);
      return false;
    }
    pass.set(Conditions.CONFLICT, Condition.FALSE, Reasons.SOLE_POLICY,
        PolicyConflicts.soleGate(pass.policy()));
    return true;
  }

  /** The policy's Valkey connection, or why there is none. */
  private record Connection(ValkeyCommands commands, String problem) {}

  private Connection connection(PolicyPass pass) {
    CachePolicyStatus status = pass.status();
    if (!Conditions.isTrue(status, Conditions.L2_REACHABLE)) {
      return new Connection(null, Conditions.find(status, Conditions.L2_REACHABLE)
          .map(Condition::getMessage).orElse("Valkey was not checked"));
    }
    try {
      return new Connection(valkey.commands(pass.valkeyUser()), null);
    } catch (RuntimeException e) {
      return new Connection(null, e.getMessage());
    }
  }

  /**
   * Runs the gate of new pods an external gate holds, and writes its view into
   * the pass's status; {@code read} giving null means the target vanished since the lookup.
   *
   * @return whether new pods are in progress
   */
  private boolean runNewPodsGate(PolicyPass pass, Supplier<NewPods> read) {
    NewPods pods;
    try {
      pods = read.get();
    } catch (KubernetesClientException e) {
      log.debug("CachePolicy {}/{}: reading the target's ReplicaSets failed", pass.namespace(),
          pass.policy().getMetadata().getName(), e);
      pass.set(Conditions.WARMED, Condition.UNKNOWN, Reasons.RECONCILE_FAILED, "cannot tell the "
          + "target's new pods from the older ones: " + e.getMessage() + "; the operator needs "
          + "get on deployments and statefulsets, list on replicasets and get on "
          + "controllerrevisions (operator/k8s/rbac.yaml)");
      return false;
    }
    if (pods == null) {
      return false;
    }
    String endpoint = pass.namespace() + "/" + pass.policy().getMetadata().getName();
    // Flagger's confirm-promotion webhook gates the Deployments it drives, and the webhook gives
    // their pods no readiness gate: the policy reports the external gate, as for an analysis.
    boolean readiness = pass.spec().getTargetRef().getKind().readinessGated() && !pods.flagger();
    String gatedBy = pods.flagger()
        ? "Flagger's confirm-promotion webhook (POST /flagger/confirm-promotion)"
        : readiness ? "the " + PodReadiness.CONDITION + " readiness gate of its pods"
        : "an Argo analysis (GET /gate/" + endpoint + ")";
    Connection valkeyNow = connection(pass);
    NewPodsGate.Outcome outcome = newPodsGate.run(pass.context().getClient(), pass.policy(),
        pods, valkeyNow.commands(), valkeyNow.problem(), gatedBy);
    CachePolicyStatus status = pass.status();
    status.setGate(outcome.gate());
    status.setKeySpaces(outcome.keySpaces());
    if (outcome.warmed() != null) {
      pass.set(Conditions.WARMED, outcome.warmed().status(), outcome.warmed().reason(),
          outcome.warmed().message());
    }
    if (!readiness) {
      pass.set(Conditions.ROLLOUT_HELD, outcome.held().status(), outcome.held().reason(),
          outcome.held().message());
      if (pods.flagger()) {
        // Pods gated before Flagger took the Deployment over still get their condition.
        warmPods.apply(pass.context().getClient(), pass.policy(), outcome.verdict());
      }
      return outcome.active();
    }
    WarmPods.Result held = warmPods.apply(pass.context().getClient(), pass.policy(),
        outcome.verdict());
    PodReadiness.report(pass, outcome, held);
    return outcome.active() || held.waiting() > 0;
  }

  /**
   * Reports {@code ready}, unless the gate found the policy cannot warm: a budget below the
   * steady origin rate shows only on live figures.
   */
  private static void reportReady(PolicyPass pass, Check ready) {
    Optional<Condition> warmed = Conditions.find(pass.status(), Conditions.WARMED);
    Check shown = ready.ok()
        && warmed.map(c -> Reasons.CANNOT_WARM.equals(c.getReason())).orElse(false)
        ? Check.failed(Reasons.CANNOT_WARM, warmed.get().getMessage()) : ready;
    pass.report(Conditions.READY, shown.ok(), shown.reason(), shown.message());
  }

  /**
   * Reports the change-stream reader's progress when {@code spec.changeStream} is set, read through
   * the connection the probe opened; removes {@code status.changeStream} and
   * {@code ChangesFollowed} when it is not.
   */
  private void followChanges(PolicyPass pass) {
    CachePolicySpec spec = pass.spec();
    CachePolicyStatus status = pass.status();
    ChangeStreamSpec changes = spec == null ? null : spec.getChangeStream();
    if (changes == null) {
      status.setChangeStream(null);
      Conditions.remove(status, Conditions.CHANGES_FOLLOWED);
      return;
    }
    ChangeStreamProgress.Outcome outcome;
    if (!pass.specValid()) {
      outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
          "the spec is invalid");
    } else if (!Conditions.isTrue(status, Conditions.L2_REACHABLE)) {
      outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
          Conditions.find(status, Conditions.L2_REACHABLE).map(Condition::getMessage)
              .orElse("Valkey was not checked"));
    } else {
      try {
        outcome = ChangeStreamProgress.read(valkey.commands(pass.valkeyUser()).sync(),
            spec.getCacheName(), changes, clock.instant());
      } catch (RuntimeException e) {
        log.debug("CachePolicy {}/{}: reading the change stream's progress failed",
            pass.namespace(), pass.policy().getMetadata().getName(), e);
        outcome = ChangeStreamProgress.notChecked(changes, status.getChangeStream(),
            e.getMessage());
      }
    }
    status.setChangeStream(outcome.status());
    pass.report(Conditions.CHANGES_FOLLOWED, outcome.condition(), outcome.reason(),
        outcome.message());
  }

  /** Logs each condition transition of the pass and records it as an Event on the policy. */
  private void recordTransitions(PolicyPass pass) {
    PolicyEvents events = new PolicyEvents(pass.context().getClient(), clock);
    for (Conditions.Transition t : pass.transitions()) {
      log.info("CachePolicy {}/{}: {}", pass.namespace(), pass.policy().getMetadata().getName(),
          t.current());
      events.transitioned(pass.policy(), t);
    }
  }

  /**
   * Patches the status if the pass changed it, and comes back every {@link #GATE_INTERVAL} while
   * a canary is in progress, every recheck interval while the policy is not {@link #settled},
   * and only on a change otherwise.
   */
  private UpdateControl<CachePolicy> finish(PolicyPass pass, boolean canaryActive) {
    if (!leading.getAsBoolean()) {
      // The Lease was lost during this pass: the new leader writes this status.
      return fenced(pass.policy());
    }
    UpdateControl<CachePolicy> control = pass.statusChanged()
        ? UpdateControl.patchStatus(statusPatch(pass.policy(), pass.status()))
        : UpdateControl.noUpdate();
    if (canaryActive) {
      return control.rescheduleAfter(GATE_INTERVAL.compareTo(recheckInterval) < 0
          ? GATE_INTERVAL : recheckInterval);
    }
    return settled(pass.spec(), pass.status()) ? control
        : control.rescheduleAfter(recheckInterval);
  }

  /**
   * Whether a policy without a canary in progress can wait for a change: it is Ready, not in
   * conflict with another policy, and follows no change stream. Everything else it depends on
   * comes as an event: its spec, its target (informers), its Valkey endpoint
   * ({@link ValkeyChanges}), the Secrets it names ({@link SecretChanges}). An unsettled policy is
   * passed again every recheck interval: the policy it conflicts with may go without an event to
   * it, a check that failed may pass now, and a change stream's progress is read from Valkey only.
   */
  static boolean settled(CachePolicySpec spec, CachePolicyStatus status) {
    return Conditions.isTrue(status, Conditions.READY)
        && !Conditions.isTrue(status, Conditions.CONFLICT)
        && (spec == null || spec.getChangeStream() == null);
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
    CachePolicyStatus status = PolicyPass.copy(policy.getStatus());
    long generation = PolicyPass.generationOf(policy);
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
    if (hasFinalizer(policy, FINALIZER) && spec != null && spec.getTargetRef() != null
        && spec.getTargetRef().getKind() != null
        && spec.getTargetRef().getKind().readinessGated()) {
      String kind = spec.getTargetRef().getKind().name();
      int released = warmPods.releaseAll(context.getClient(), policy, kind,
          spec.getTargetRef().getName());
      if (released > 0) {
        log.warn("CachePolicy {}/{} deleted while {} pods of {} {} waited on {}; they are let "
            + "in", policy.getMetadata().getNamespace(), policy.getMetadata().getName(),
            released, kind, spec.getTargetRef().getName(), PodReadiness.CONDITION);
      }
    }
    valkey.release(PolicyPass.valkeyUser(policy));
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

  private static CachePolicy statusPatch(CachePolicy policy, CachePolicyStatus status) {
    CachePolicy patch = new CachePolicy();
    patch.setMetadata(new ObjectMetaBuilder()
        .withName(policy.getMetadata().getName())
        .withNamespace(policy.getMetadata().getNamespace())
        .build());
    patch.setStatus(status);
    return patch;
  }
}
