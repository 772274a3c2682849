// The migration controller (upstream's watch/migration/migration.go): for each
// VirtualMachineInstanceMigration it creates the target launcher Pod (guarded by expectations and by the
// cluster's parallel-migration limits), hands the migration to the virt-handlers through the VMI's
// migrationState and target-node label once that pod is ready, cancels on deletion, times out target pods
// that stay Pending, reports the phase from what the pod and the VMI's migrationState show
// (migration-status.ts), and garbage-collects the VMI's oldest finished migrations.
import { semanticallyEqual } from "../../../apimachinery/semantic-equal.js";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { isNotFound } from "../../../controller/api-error.js";
import { systemClock, type Clock } from "../../../controller/clock.js";
import type { KubeClient, ResourceClient } from "../../../controller/client.js";
import { timestamp } from "../../../controller/conditions.js";
import type { EventRecorder } from "../../../controller/events.js";
import {
  ControllerExpectations,
  UIDTrackingControllerExpectations,
} from "../../../controller/expectations.js";
import { NamespaceIndex } from "../../../controller/indexers.js";
import type { Informer } from "../../../controller/informer.js";
import { defaultLogger, type Logger } from "../../../controller/log.js";
import { isBeingDeleted, keyOf, splitKey, type KubeObject } from "../../../controller/object.js";
import { coreGVR, virtualMachineInstancesGVR, type StoredVMI } from "../../../controller/resources.js";
import { isRunning as isVMIRunning } from "../../../controller/vmi-phase.js";
import { WorkQueue } from "../../../controller/workqueue.js";
import { FeatureGate } from "../../../virt-config/featuregate/feature-gates.js";
import type { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { errorMessage } from "../../../util/error-message.js";
import { AppLabel, CreatedByLabel, MigrationSelectorLabel } from "../../../util/constants.js";
import type { TemplateService } from "../../services/template.js";
import { LauncherAppLabelValue } from "../../services/pod-metadata.js";
import { observedLatestApiVersion, withLatestApiVersion } from "../common/api-version.js";
import { currentVMIPod, isControlledBy, isPodReady, podIsDown } from "../common/pod-state.js";
import { Reporter } from "../common/reporter.js";
import { attachmentPodsOf } from "../vmi/volume-hotplug.js";
import { abortRequestedVMI, handedOffVMI, markedFailedVMI, migrationPatch } from "./handoff.js";
import { migrationBackoffMs, migrationsToGarbageCollect } from "./migration-history.js";
import {
  BusyRequeueDelayMs,
  canMigrateVMI,
  checkCapacity,
  findRunningMigrations,
  LimitRequeueDelayMs,
} from "./migration-limits.js";
import { clusterMigrationConfiguration, effectiveMigrationConfiguration } from "./migration-policy.js";
import { computeMigrationStatus } from "./migration-status.js";
import { pendingPodVerdict } from "./pending-timeout.js";
import { runtimeUserPatch } from "./runtime-user.js";
import { migrationTargetPod } from "./target-pod.js";
import {
  ByVMINameIndex,
  isMigrationFinal,
  isMigrationSynchronized,
  MigrationJobLabel,
  MigrationJobNameAnnotation,
  MigrationPhase,
  MigrationReason,
  MigrationTargetReadyTimestampAnnotation,
  stateBelongsTo,
  virtualMachineInstanceMigrationsGVR,
  vmiKeyOf,
  type StoredMigrationPolicy,
  type StoredVMIM,
} from "./vmim.js";
import { escapeJsonPointer, PatchSet } from "../../../apimachinery/patch/patch.js";
import { VirtualMachineInstanceMigrationFinalizer } from "../../../util/constants.js";

export interface MigrationControllerDeps {
  client: KubeClient;
  /** Indexed by ByVMINameIndex (byVMIName). */
  migrations: Informer<StoredVMIM>;
  vmis: Informer<StoredVMI>;
  pods: Informer<Pod>;
  migrationPolicies: Informer<StoredMigrationPolicy>;
  nodes: Informer<KubeObject>;
  templateService: Pick<TemplateService, "renderMigrationManifest">;
  clusterConfig: () => ClusterConfig;
  recorder: Pick<EventRecorder, "event">;
  clock?: Clock;
  logger?: Logger;
}

export class MigrationController {
  readonly queue: WorkQueue<string>;
  readonly podExpectations = new UIDTrackingControllerExpectations(
    new ControllerExpectations("migration-pods"),
  );
  /** Migrations handed to virt-handler whose VMI the cache may not show yet (upstream's handOffMap). */
  private readonly handedOff = new Set<string>();
  private readonly migrationClient: ResourceClient<StoredVMIM>;
  private readonly vmiClient: ResourceClient<StoredVMI>;
  private readonly podClient: ResourceClient<Pod>;
  private readonly namespaceClient: ResourceClient<KubeObject>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly reporter: Reporter;

  constructor(private readonly deps: MigrationControllerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.logger = deps.logger ?? defaultLogger;
    this.reporter = new Reporter(deps.recorder, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-controller-migration", logger: this.logger });
    this.migrationClient = deps.client.resource<StoredVMIM>(virtualMachineInstanceMigrationsGVR);
    this.vmiClient = deps.client.resource<StoredVMI>(virtualMachineInstancesGVR);
    this.podClient = deps.client.resource<Pod>(coreGVR.pods);
    this.namespaceClient = deps.client.resource<KubeObject>(coreGVR.namespaces);
    deps.migrations.addEventHandler({
      add: (migration) => this.queue.add(keyOf(migration)),
      update: (_old, migration) => this.queue.add(keyOf(migration)),
      delete: (migration) => this.queue.add(keyOf(migration)),
    });
    deps.vmis.addEventHandler({
      add: (vmi) => this.enqueueMigrationsOf(vmi),
      update: (old, vmi) => {
        if (old.metadata?.resourceVersion !== vmi.metadata?.resourceVersion) this.enqueueMigrationsOf(vmi);
      },
      delete: (vmi) => this.enqueueMigrationsOf(vmi),
    });
    deps.pods.addEventHandler({
      add: (pod) => (isBeingDeleted(pod) ? this.onPodDelete(pod) : this.onPodAdd(pod)),
      update: (old, pod) => this.onPodUpdate(old, pod),
      delete: (pod) => this.onPodDelete(pod),
    });
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    this.logger.info("Starting migration controller.");
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  // Event handlers turn objects into keys.

  private enqueueMigrationsOf(vmi: StoredVMI): void {
    for (const migration of this.deps.migrations.byIndex(ByVMINameIndex, keyOf(vmi)))
      this.queue.add(keyOf(migration));
  }

  /** The migration a target pod belongs to: named by its annotation, the same uid as its label. */
  private migrationOfPod(pod: Pod): StoredVMIM | undefined {
    const name = pod.metadata.annotations?.[MigrationJobNameAnnotation];
    const uid = pod.metadata.labels?.[MigrationJobLabel];
    if (!name || !uid) return undefined;
    const migration = this.deps.migrations.getByName(pod.metadata.namespace ?? "", name);
    return migration?.metadata?.uid === uid ? migration : undefined;
  }

  private onPodAdd(pod: Pod): void {
    const migration = this.migrationOfPod(pod);
    if (!migration) return;
    this.podExpectations.creationObserved(keyOf(migration));
    this.queue.add(keyOf(migration));
  }

  private onPodUpdate(old: Pod, pod: Pod): void {
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    if (isBeingDeleted(pod)) {
      this.onPodDelete(pod);
      return;
    }
    const previous = this.migrationOfPod(old);
    const current = this.migrationOfPod(pod);
    if (previous && previous !== current) this.queue.add(keyOf(previous));
    if (current) this.queue.add(keyOf(current));
  }

  private onPodDelete(pod: Pod): void {
    const migration = this.migrationOfPod(pod);
    if (!migration) return;
    this.podExpectations.deletionObserved(keyOf(migration), keyOf(pod));
    this.queue.add(keyOf(migration));
  }

  // Reading the cache.

  private podsIn(namespace: string): Pod[] {
    return this.deps.pods.byIndex(NamespaceIndex, namespace);
  }

  /** Launcher pods this VMI created for this migration (upstream's listMatchingTargetPods). */
  private targetPodsOf(migration: StoredVMIM, vmi: VirtualMachineInstance): Pod[] {
    return this.podsIn(migration.metadata?.namespace ?? "").filter(
      (pod) =>
        pod.metadata.labels?.[CreatedByLabel] === vmi.metadata?.uid &&
        pod.metadata.labels?.[MigrationJobLabel] === migration.metadata?.uid &&
        pod.metadata.labels?.[AppLabel] === LauncherAppLabelValue,
    );
  }

  private vmiOf = (migration: StoredVMIM): StoredVMI | undefined => this.deps.vmis.get(vmiKeyOf(migration));

  private isHandedOff(migration: StoredVMIM, vmi: VirtualMachineInstance): boolean {
    return stateBelongsTo(vmi, migration) || this.handedOff.has(keyOf(migration));
  }

  /** One migration: act, then report; throws to retry with backoff. */
  async execute(key: string): Promise<void> {
    const migration = this.deps.migrations.get(key);
    if (!migration) {
      this.podExpectations.deleteExpectations(key);
      this.handedOff.delete(key);
      return;
    }
    // First of all, store objects written by an older API version in the current one.
    if (!observedLatestApiVersion(migration)) {
      const updated = withLatestApiVersion(migration);
      const labels = (updated.metadata ??= {}).labels ?? {};
      labels[MigrationSelectorLabel] ??= migration.spec.vmiName ?? "";
      updated.metadata.labels = labels;
      await this.migrationClient.update(updated);
      return;
    }
    const vmi = this.vmiOf(migration);
    if (!vmi) {
      if (!isBeingDeleted(migration)) {
        this.logger.info({ migration: key }, `Deleting migration for deleted vmi ${vmiKeyOf(migration)}`);
        await this.migrationClient.delete(
          migration.metadata?.namespace ?? "",
          migration.metadata?.name ?? "",
        );
      }
      return;
    }
    const targetPod = this.targetPodsOf(migration, vmi)[0];
    let syncError: Error | undefined;
    if (this.podExpectations.satisfiedExpectations(key)) {
      try {
        await this.sync(key, migration, vmi, targetPod);
      } catch (err) {
        syncError = err instanceof Error ? err : new Error(String(err));
      }
    }
    await this.updateStatus(migration, vmi, targetPod, syncError);
    if (syncError) throw syncError;
    if (isMigrationFinal(migration)) await this.garbageCollect(vmi);
  }

  // Acting (upstream's sync).

  private async sync(
    key: string,
    migration: StoredVMIM,
    vmi: StoredVMI,
    pod: Pod | undefined,
  ): Promise<void> {
    if (isBeingDeleted(vmi)) return;
    if (stateBelongsTo(vmi, migration) && vmi.status?.migrationState?.completed === true) return;
    const namespace = migration.metadata?.namespace ?? "";
    if (!canMigrateVMI(migration, vmi, this.deps.migrations.byIndex(NamespaceIndex, namespace)))
      throw new Error("vmi is ineligible for migration because another migration job is running");
    const deleted = isBeingDeleted(migration);
    switch (migration.status?.phase ?? "") {
      case MigrationPhase.Pending:
        if (deleted) return this.cancelBeforeHandoff(key, migration, vmi, pod);
        if (this.backingOff(key, migration, vmi)) return;
        if (!pod) return this.startMigration(key, migration, vmi);
        if (!isPodReady(pod)) return this.handlePendingPodTimeout(key, migration, vmi, pod);
        return;
      case MigrationPhase.Scheduling:
        if (deleted) return this.cancelBeforeHandoff(key, migration, vmi, pod);
        if (pod) return this.handlePendingPodTimeout(key, migration, vmi, pod);
        return;
      case MigrationPhase.Scheduled:
        if (deleted && !this.isHandedOff(migration, vmi))
          return this.cancelBeforeHandoff(key, migration, vmi, pod);
        if (pod && isPodReady(pod)) return this.handOff(key, migration, vmi, pod);
        return;
      case MigrationPhase.PreparingTarget:
      case MigrationPhase.TargetReady: {
        const state = vmi.status?.migrationState;
        const targetGone = !pod || podIsDown(pod);
        const notStarted =
          Object.keys(state?.targetDirectMigrationNodePorts ?? {}).length === 0 &&
          !state?.startTimestamp &&
          state?.failed !== true &&
          state?.completed !== true;
        if (targetGone && isMigrationSynchronized(vmi) && notStarted)
          await this.markFailedOnVMI(migration, vmi);
        return;
      }
      case MigrationPhase.Failed:
        if (isMigrationSynchronized(vmi) && !vmi.status?.migrationState?.endTimestamp)
          await this.markFailedOnVMI(migration, vmi);
        return;
      case MigrationPhase.Running:
        if (deleted && isMigrationSynchronized(vmi)) await this.requestAbort(migration, vmi);
        if (pod) await this.stampTargetReady(vmi, pod);
        return;
    }
  }

  /** Evacuation and workload-update migrations after failed ones wait (upstream's handleMigrationBackoff). */
  private backingOff(key: string, migration: StoredVMIM, vmi: StoredVMI): boolean {
    const ofVMI = this.deps.migrations.byIndex(ByVMINameIndex, vmiKeyOf(migration));
    const waitMs = migrationBackoffMs(migration, ofVMI, this.clock.now());
    if (waitMs <= 0) return false;
    this.queue.addAfter(key, waitMs);
    const name = `${vmi.metadata?.namespace ?? ""}/${vmi.metadata?.name ?? ""}`;
    this.reporter.event(vmi, "Warning", MigrationReason.MigrationBackoff, `backoff migrating vmi ${name}`);
    return true;
  }

  /** A Pending migration without a target pod: prepare the VMI, then create the pod if the limits allow. */
  private async startMigration(key: string, migration: StoredVMIM, vmi: StoredVMI): Promise<void> {
    const sourcePod = currentVMIPod(vmi, this.podsIn(vmi.metadata?.namespace ?? ""));
    // The source went away: the VMI's own fate will end the migration.
    if (!sourcePod) return;
    const ops = runtimeUserPatch(vmi, this.deps.clusterConfig().rootEnabled());
    let current: StoredVMI = vmi;
    if (ops.length > 0) {
      try {
        current = await this.vmiClient.patch(
          vmi.metadata?.namespace ?? "",
          vmi.metadata?.name ?? "",
          "json",
          ops,
        );
      } catch (err) {
        throw new Error(`failed to set VMI RuntimeUser: ${errorMessage(err)}`);
      }
    }
    // Wait for our own pod creations to show, and for a VMI that still has two pods.
    const activePods = this.podsIn(vmi.metadata?.namespace ?? "").filter(
      (pod) => isControlledBy(pod, vmi.metadata?.uid) && !podIsDown(pod),
    );
    if (this.podExpectations.expectations.allPendingCreations() > 0 || activePods.length > 1) {
      this.queue.addAfter(key, BusyRequeueDelayMs);
      return;
    }
    const config = clusterMigrationConfiguration(this.deps.clusterConfig().getConfig().migrations);
    const running = findRunningMigrations(this.deps.migrations.list(), {
      vmiOf: this.vmiOf,
      hasTargetPod: (other, otherVMI) => this.targetPodsOf(other, otherVMI).length > 0,
    });
    const verdict = checkCapacity({
      vmi,
      running,
      vmiOf: this.vmiOf,
      parallelMigrationsPerCluster: config.parallelMigrationsPerCluster ?? 5,
      parallelOutboundMigrationsPerNode: config.parallelOutboundMigrationsPerNode ?? 2,
    });
    if (!verdict.ok) {
      this.logger.info({ migration: key }, verdict.message);
      this.queue.addAfter(key, LimitRequeueDelayMs);
      return;
    }
    if (isVMIRunning(current)) await this.createTargetPod(key, migration, current, sourcePod);
  }

  private async createTargetPod(
    key: string,
    migration: StoredVMIM,
    vmi: StoredVMI,
    sourcePod: Pod,
  ): Promise<void> {
    let template: Pod;
    try {
      template = await this.deps.templateService.renderMigrationManifest(vmi, sourcePod);
    } catch (err) {
      throw new Error(`failed to render launch manifest: ${errorMessage(err)}`);
    }
    const matchLevel = this.deps.clusterConfig().getConfig().migrations?.matchSELinuxLevelOnMigration;
    const manifest = migrationTargetPod({
      template,
      vmi,
      migration,
      sourcePod,
      sourceNode: this.deps.nodes.get(vmi.status?.nodeName ?? ""),
      matchSELinuxLevel: matchLevel ?? true,
    });
    this.podExpectations.expectCreations(key, 1);
    let created: Pod;
    try {
      created = await this.podClient.create(manifest);
    } catch (err) {
      // A creation the server refused will never be observed.
      this.podExpectations.creationObserved(key);
      const message = errorMessage(err);
      if (message.includes("violates PodSecurity")) {
        const why = `failed to create target pod for vmi ${keyOf(vmi)}, it needs a privileged namespace to run: ${message}`;
        this.reporter.event(
          vmi,
          "Warning",
          MigrationReason.FailedCreatePod,
          `failed to render launch manifest: ${why}`,
        );
        throw new Error(why);
      }
      this.reporter.event(vmi, "Warning", MigrationReason.FailedCreatePod, `Error creating pod: ${message}`);
      throw new Error(`failed to create vmi migration target pod: ${message}`);
    }
    this.reporter.event(
      migration,
      "Normal",
      MigrationReason.SuccessfulCreatePod,
      `Created migration target pod ${created.metadata.name ?? ""}`,
    );
  }

  /** Deleted before virt-handler heard of it: the target pod simply goes (handlePreHandoffMigrationCancel). */
  private async cancelBeforeHandoff(
    key: string,
    migration: StoredVMIM,
    vmi: StoredVMI,
    pod: Pod | undefined,
  ): Promise<void> {
    if (!pod) return;
    await this.deleteTargetPod(
      key,
      migration,
      pod,
      `migration canceled and pod ${keyOf(pod)} is deleted`,
      (err) => `Error deleting canceled migration target pod: ${err}`,
      () =>
        `cannot delete pending target pod ${pod.metadata.name ?? ""}/${pod.metadata.namespace ?? ""} for migration although migration is aborted`,
    );
    this.logger.info(
      { vmi: keyOf(vmi), migration: key },
      "Deleted pending migration target pod of a canceled migration",
    );
  }

  private async deleteTargetPod(
    key: string,
    migration: StoredVMIM,
    pod: Pod,
    message: string,
    eventOnFailure: (err: string) => string,
    errorOnFailure: (err: string) => string,
  ): Promise<void> {
    this.podExpectations.expectDeletions(key, [keyOf(pod)]);
    try {
      await this.podClient.delete(pod.metadata.namespace ?? "", pod.metadata.name ?? "");
    } catch (err) {
      this.podExpectations.deletionObserved(key, keyOf(pod));
      this.reporter.event(
        migration,
        "Warning",
        MigrationReason.FailedDeletePod,
        eventOnFailure(errorMessage(err)),
      );
      throw new Error(errorOnFailure(errorMessage(err)));
    }
    this.reporter.event(migration, "Normal", MigrationReason.SuccessfulDeletePod, message);
  }

  /** A target pod stuck Pending is deleted after its timeout (which fails the migration). */
  private async handlePendingPodTimeout(
    key: string,
    migration: StoredVMIM,
    vmi: StoredVMI,
    pod: Pod,
  ): Promise<void> {
    const verdict = pendingPodVerdict(migration, pod, this.clock.now());
    if (!verdict) return;
    if (verdict.unschedulable) {
      this.reporter.event(
        migration,
        "Warning",
        MigrationReason.TargetPodUnschedulable,
        `Migration target pod for VMI [${keyOf(vmi)}] is currently unschedulable.`,
      );
    }
    if (verdict.requeueAfterMs !== undefined) this.queue.addAfter(key, verdict.requeueAfterMs);
    if (verdict.deleteMessage === undefined) return;
    await this.deleteTargetPod(
      key,
      migration,
      pod,
      verdict.deleteMessage,
      (err) => `Error deleted migration target pod: ${err}`,
      (err) => `failed to delete vmi migration target pod that reached pending pod timeout period.: ${err}`,
    );
  }

  /** The target pod is ready: tell the virt-handlers through the VMI (handleTargetPodHandoff). */
  private async handOff(key: string, migration: StoredVMIM, vmi: StoredVMI, pod: Pod): Promise<void> {
    if (stateBelongsTo(vmi, migration)) return;
    const namespace = vmi.metadata?.namespace ?? "";
    let namespaceLabels: Record<string, string> | undefined;
    let next: VirtualMachineInstance | undefined;
    try {
      namespaceLabels = (await this.namespaceClient.get("", namespace)).metadata?.labels;
      const configuration = effectiveMigrationConfiguration(
        clusterMigrationConfiguration(this.deps.clusterConfig().getConfig().migrations),
        this.deps.migrationPolicies.list(),
        vmi.metadata?.labels,
        namespaceLabels,
      );
      next = handedOffVMI({
        migration,
        vmi,
        targetPod: pod,
        attachmentPods: attachmentPodsOf(pod, this.podsIn(namespace)),
        configuration,
        reportMemoryOverhead: this.deps
          .clusterConfig()
          .isFeatureGateEnabled(FeatureGate.VmiMemoryOverheadReport),
      });
    } catch (err) {
      throw new Error(`failed to match migration policy: ${errorMessage(err)}`);
    }
    if (!next) return;
    try {
      await this.patchVMI(vmi, next);
    } catch (err) {
      this.reporter.event(
        migration,
        "Warning",
        MigrationReason.FailedHandOverPod,
        `Failed to set MigrationStat in VMI status. :${errorMessage(err)}`,
      );
      throw err;
    }
    this.handedOff.add(key);
    this.reporter.event(
      migration,
      "Normal",
      MigrationReason.SuccessfulHandOverPod,
      "Migration target pod is ready for preparation by virt-handler.",
    );
  }

  private async patchVMI(before: VirtualMachineInstance, after: VirtualMachineInstance): Promise<void> {
    const patch = migrationPatch(before, after);
    if (patch.isEmpty) return;
    await this.vmiClient.patch(
      before.metadata?.namespace ?? "",
      before.metadata?.name ?? "",
      "json",
      patch.toJSON(),
    );
  }

  /** The target went away before the migration started: the VMI says so (handleMarkMigrationFailedOnVMI). */
  private async markFailedOnVMI(migration: StoredVMIM, vmi: StoredVMI): Promise<void> {
    await this.patchVMI(vmi, markedFailedVMI(vmi, timestamp(this.clock.now())));
    this.reporter.event(
      vmi,
      "Warning",
      MigrationReason.FailedMigration,
      `VirtualMachineInstance migration uid ${migration.metadata?.uid ?? ""} failed. reason: Target pod is down`,
    );
  }

  /** Deleted while running: virt-handler aborts it (markMigrationAbortInVmiStatus). */
  private async requestAbort(migration: StoredVMIM, vmi: StoredVMI): Promise<void> {
    const next = abortRequestedVMI(vmi);
    if (!next) return;
    try {
      await this.patchVMI(vmi, next);
    } catch (err) {
      const message = `failed to set MigrationState in VMI status. :${errorMessage(err)}`;
      this.reporter.event(migration, "Warning", MigrationReason.FailedAbortMigration, message);
      throw new Error(message);
    }
    this.reporter.event(
      migration,
      "Normal",
      MigrationReason.SuccessfulAbortMigration,
      "Migration is ready to be canceled by virt-handler.",
    );
  }

  /** The target pod carries when its domain became ready, once the target handler reported it. */
  private async stampTargetReady(vmi: StoredVMI, pod: Pod): Promise<void> {
    const ready = vmi.status?.migrationState?.targetNodeDomainReadyTimestamp;
    if (!ready || pod.metadata.annotations?.[MigrationTargetReadyTimestampAnnotation] !== undefined) return;
    const patch = new PatchSet();
    if (pod.metadata.annotations) {
      patch.add(`/metadata/annotations/${escapeJsonPointer(MigrationTargetReadyTimestampAnnotation)}`, ready);
    } else {
      patch.add("/metadata/annotations", { [MigrationTargetReadyTimestampAnnotation]: ready });
    }
    await this.podClient.patch(pod.metadata.namespace ?? "", pod.metadata.name ?? "", "json", patch.toJSON());
  }

  // Reporting (upstream's updateStatus).

  private async updateStatus(
    migration: StoredVMIM,
    vmi: StoredVMI,
    targetPod: Pod | undefined,
    syncError: Error | undefined,
  ): Promise<void> {
    const namespace = migration.metadata?.namespace ?? "";
    const { status, removeFinalizer, events } = computeMigrationStatus({
      migration,
      vmi,
      targetPod,
      attachmentPod: targetPod ? attachmentPodsOf(targetPod, this.podsIn(namespace))[0] : undefined,
      sourcePod: currentVMIPod(vmi, this.podsIn(namespace)),
      canMigrate: canMigrateVMI(migration, vmi, this.deps.migrations.byIndex(NamespaceIndex, namespace)),
      handedOff: this.isHandedOff(migration, vmi),
      syncError,
      now: this.clock.now(),
    });
    for (const event of events) this.reporter.event(migration, event.type, event.reason, event.message);
    let current = migration;
    if (!semanticallyEqual(status, migration.status)) {
      current = await this.migrationClient.updateStatus({ ...structuredClone(migration), status });
    }
    const finalizers = current.metadata?.finalizers ?? [];
    if (removeFinalizer && finalizers.includes(VirtualMachineInstanceMigrationFinalizer)) {
      const updated = structuredClone(current);
      (updated.metadata ??= {}).finalizers = finalizers.filter(
        (finalizer) => finalizer !== VirtualMachineInstanceMigrationFinalizer,
      );
      await this.migrationClient.update(updated);
    }
  }

  /** Only the newest finished migrations of a VMI are kept. */
  private async garbageCollect(vmi: StoredVMI): Promise<void> {
    const { namespace } = splitKey(keyOf(vmi));
    for (const name of migrationsToGarbageCollect(this.deps.migrations.byIndex(ByVMINameIndex, keyOf(vmi)))) {
      try {
        await this.migrationClient.delete(namespace, name);
      } catch (err) {
        // Someone else deleted it already.
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
