// The KubeVirt controller (upstream's pkg/virt-operator/kubevirt.go): watches the KubeVirt CR and every
// object it installed, and for the one KubeVirt CR installs (or uninstalls) KubeVirt and reports phase and
// conditions. Acting and reporting are split: a pass reconciles the install, then writes the status it
// computed, once, and only when it changed.
import type { KubeVirtStatus } from "../api/generated/v1.js";
import type { KubeVirtCR } from "./cluster.js";
import { systemClock, type Clock } from "../controller/clock.js";
import { defaultLogger, type Logger } from "../controller/log.js";
import { keyOf, type KubeObject } from "../controller/object.js";
import { WorkQueue, type SyncResult } from "../controller/workqueue.js";
import type { CommonInstancetypeStores, OperatorClient, Stores, WatchedStore } from "./cluster.js";
import {
  deleteExpectations,
  expectationsSatisfied,
  newOperatorExpectations,
  resetExpectations,
  type OperatorExpectations,
} from "./expectations.js";
import type { ReconcileContext } from "./resource/apply/context.js";
import { allStoresEmpty, deleteAll } from "./resource/apply/delete.js";
import { targetOf } from "./resource/apply/metadata.js";
import { isReady, reconcileInstall } from "./resource/apply/reconcile.js";
import { generateInstallStrategy, type InstallStrategy } from "./resource/generate/install/strategy.js";
import { OPERATOR_RESOURCES, WATCHED_RESOURCES, type OperatorResource } from "./resources.js";
import {
  KubeVirtPhase,
  setConditionTimestamps,
  updateConditionsAvailable,
  updateConditionsCreated,
  updateConditionsDeleting,
  updateConditionsDeletionFailed,
  updateConditionsDeploying,
  updateConditionsFailedError,
  updateConditionsFailedExists,
  updateConditionsUpdating,
  withKubeVirtFinalizer,
  withoutKubeVirtFinalizers,
} from "./util/conditions.js";
import type { Env, KubeVirtDeploymentConfig } from "./util/config.js";
import {
  KUBEVIRT_VERSION_ENV,
  setObservedDeploymentConfig,
  setTargetDeploymentConfig,
  targetConfigFromKubeVirt,
} from "./util/config.js";
import {
  API_LATEST_VERSION,
  API_STORAGE_VERSION,
  LATEST_OBSERVED_API_VERSION_ANNOTATION,
  STORAGE_OBSERVED_API_VERSION_ANNOTATION,
} from "./util/labels.js";

/** setTimeout's limit: a longer wake-up (a week-long CA) would fire at once. */
const MAX_REQUEUE_MS = 2 ** 31 - 1;

export interface KubeVirtControllerOptions {
  client: OperatorClient;
  stores: Stores;
  commonInstancetypeStores?: CommonInstancetypeStores;
  operatorNamespace: string;
  /** Upstream's OpenAPI document, the CRD schemas' source. */
  swagger: unknown;
  /** The operator's environment: its image, the KubeVirt version, image overrides, passthrough variables. */
  env: Env;
  clock?: Clock;
  logger?: Logger;
  expectations?: OperatorExpectations;
}

const GO_ARCH: Readonly<Record<string, string>> = {
  x64: "amd64",
  arm64: "arm64",
  s390x: "s390x",
  ppc64: "ppc64le",
};

export class KubeVirtController {
  readonly queue: WorkQueue<string>;
  private readonly expectations: OperatorExpectations;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private strategy: { id: string; strategy: InstallStrategy } | undefined;

  constructor(private readonly opts: KubeVirtControllerOptions) {
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger ?? defaultLogger;
    this.expectations = opts.expectations ?? newOperatorExpectations(this.clock, this.logger);
    this.queue = new WorkQueue<string>({ name: "virt-operator", logger: this.logger });
    opts.stores.kubevirts.addEventHandler({
      add: (kv) => this.queue.add(keyOf(kv)),
      update: (_old, kv) => this.queue.add(keyOf(kv)),
      delete: (kv) => this.queue.add(keyOf(kv)),
    });
    for (const resource of Object.keys(OPERATOR_RESOURCES) as OperatorResource[]) {
      this.watchInstalled(opts.stores[resource], resource);
    }
    this.watchInstalled(opts.stores.pods, undefined);
    for (const store of Object.values(opts.commonInstancetypeStores ?? {}))
      this.watchInstalled(store, undefined);
  }

  /** Installed objects wake the one KubeVirt CR and settle its expectations, as upstream's generic handlers. */
  private watchInstalled(store: WatchedStore, resource: OperatorResource | undefined): void {
    const expecter = resource === undefined ? undefined : this.expectations[resource];
    const deleted = (obj: KubeObject) => {
      const kvKey = this.kubeVirtKey();
      if (kvKey === undefined) return;
      expecter?.deletionObserved(kvKey, keyOf(obj));
      this.queue.add(kvKey);
    };
    store.addEventHandler({
      add: (obj) => {
        if (obj.metadata?.deletionTimestamp) return deleted(obj);
        const kvKey = this.kubeVirtKey();
        if (kvKey === undefined) return;
        expecter?.creationObserved(kvKey);
        this.queue.add(kvKey);
      },
      update: (old, obj) => {
        if (old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
        if (!old.metadata?.deletionTimestamp && obj.metadata?.deletionTimestamp) return deleted(obj);
        const kvKey = this.kubeVirtKey();
        if (kvKey !== undefined) this.queue.add(kvKey);
      },
      delete: deleted,
    });
  }

  /** The key of the only KubeVirt CR; undefined when there is none or several. */
  private kubeVirtKey(): string | undefined {
    const kvs = this.opts.stores.kubevirts.list();
    if (kvs.length > 1)
      this.logger.error({ count: kvs.length }, "More than one KubeVirt custom resource detected");
    const only = kvs.length === 1 ? kvs[0] : undefined;
    return only ? keyOf(only) : undefined;
  }

  run(workers: number, signal: AbortSignal): Promise<void> {
    return this.queue.run(workers, (key) => this.execute(key), signal);
  }

  async execute(key: string): Promise<SyncResult> {
    const kv = this.opts.stores.kubevirts.get(key);
    if (!kv) {
      deleteExpectations(this.expectations, key);
      return;
    }
    // First, make sure the stored object is written in the latest API version.
    if (kv.metadata?.annotations?.[LATEST_OBSERVED_API_VERSION_ANNOTATION] !== API_LATEST_VERSION) {
      await this.opts.client.update(WATCHED_RESOURCES.kubevirts, withObservedApiVersion(kv));
      return;
    }
    if (!expectationsSatisfied(this.expectations, key)) {
      this.logger.info({ key }, "Waiting for expectations to be fulfilled");
      return;
    }
    resetExpectations(this.expectations, key);

    const working = structuredClone(kv);
    working.status ??= {};
    let requeueAfter = Infinity;
    const ctx = this.context(working, key, (ms) => (requeueAfter = Math.min(requeueAfter, Math.max(ms, 0))));
    let syncError: unknown;
    try {
      if (kv.metadata?.deletionTimestamp) await this.syncDeletion(ctx);
      else await this.syncInstallation(ctx);
    } catch (err) {
      syncError = err;
    }
    setConditionTimestamps(kv.status ?? {}, working.status, new Date(this.clock.now()).toISOString());
    await this.writeBack(kv, working);
    if (syncError !== undefined) throw syncError;
    return requeueAfter === Infinity ? undefined : { requeueAfter: Math.min(requeueAfter, MAX_REQUEUE_MS) };
  }

  private context(kv: KubeVirtCR, kvKey: string, requeueAfter: (ms: number) => void): ReconcileContext {
    return {
      kv,
      kvKey,
      target: targetOf(kv),
      client: this.opts.client,
      stores: this.opts.stores,
      expectations: this.expectations,
      clock: this.clock,
      logger: this.logger,
      requeueAfter,
    };
  }

  /** Status through the status subresource, finalizers by patch (the operator does not own metadata). */
  private async writeBack(before: KubeVirtCR, after: KubeVirtCR): Promise<void> {
    if (JSON.stringify(before.status ?? {}) !== JSON.stringify(after.status ?? {})) {
      await this.opts.client.updateStatus(WATCHED_RESOURCES.kubevirts, after);
    }
    const finalizers = after.metadata?.finalizers ?? [];
    if (JSON.stringify(before.metadata?.finalizers ?? []) !== JSON.stringify(finalizers)) {
      await this.opts.client.patch(
        WATCHED_RESOURCES.kubevirts,
        after.metadata?.namespace ?? "",
        after.metadata?.name ?? "",
        [{ op: "add", path: "/metadata/finalizers", value: finalizers }],
      );
    }
  }

  /** Upstream refuses to act while several KubeVirt CRs exist or the CR is outside the operator's namespace. */
  private activeInstallError(kv: KubeVirtCR): string | undefined {
    if (this.opts.stores.kubevirts.list().length > 1) {
      return "More than one KubeVirt CR detected, ensure that KubeVirt is only installed once.";
    }
    if (kv.metadata?.namespace !== this.opts.operatorNamespace) {
      return "KubeVirt CR is created in another namespace than the operator, that is not supported.";
    }
    return undefined;
  }

  private installStrategy(config: KubeVirtDeploymentConfig): InstallStrategy {
    if (this.strategy?.id !== config.id) {
      this.strategy = {
        id: config.id,
        strategy: generateInstallStrategy(config, this.opts.operatorNamespace, this.opts.swagger),
      };
    }
    return this.strategy.strategy;
  }

  private async syncInstallation(ctx: ReconcileContext): Promise<void> {
    const { kv } = ctx;
    const status = kv.status as KubeVirtStatus;
    const refusal = this.activeInstallError(kv);
    if (refusal !== undefined) {
      this.logger.error(
        { reason: refusal },
        "Will ignore the install request until the situation is resolved.",
      );
      updateConditionsFailedExists(status);
      return;
    }
    const config = targetConfigFromKubeVirt(kv, this.opts.env);
    status.operatorVersion = this.opts.env[KUBEVIRT_VERSION_ENV] || config.kubeVirtVersion;
    setTargetDeploymentConfig(status, config);
    ctx.target = targetOf(kv);
    status.defaultArchitecture =
      kv.spec.configuration?.architectureConfiguration?.defaultArchitecture ||
      status.defaultArchitecture ||
      (GO_ARCH[process.arch] ?? process.arch);
    status.phase ||= KubeVirtPhase.Deploying;
    const updating =
      (status.observedDeploymentID ?? "") !== "" && status.observedDeploymentID !== status.targetDeploymentID;
    if (updating) updateConditionsUpdating(status);
    else updateConditionsDeploying(status);

    const strategy = this.installStrategy(config);
    kv.metadata = { ...kv.metadata, finalizers: withKubeVirtFinalizer(kv.metadata?.finalizers) };
    let synced: boolean;
    try {
      synced = await reconcileInstall(ctx, strategy);
    } catch (err) {
      updateConditionsFailedError(status, err);
      this.logger.error({ err }, "Failed to create all resources");
      throw err;
    }
    if (!synced) return;
    updateConditionsCreated(status);
    if (!isReady(ctx)) return;
    setObservedDeploymentConfig(status, config);
    status.phase = KubeVirtPhase.Deployed;
    updateConditionsAvailable(status);
    status.observedGeneration = kv.metadata?.generation;
    this.logger.info("All KubeVirt components ready");
  }

  private async syncDeletion(ctx: ReconcileContext): Promise<void> {
    const { kv } = ctx;
    const status = kv.status as KubeVirtStatus;
    const refusal = this.activeInstallError(kv);
    if (refusal !== undefined) {
      this.logger.error(
        { reason: refusal },
        "Will ignore the delete request until the situation is resolved.",
      );
      updateConditionsFailedExists(status);
      return;
    }
    status.phase = KubeVirtPhase.Deleting;
    updateConditionsDeleting(status);
    if (!allStoresEmpty(ctx.stores)) {
      try {
        await deleteAll(ctx);
      } catch (err) {
        updateConditionsDeletionFailed(status, err);
        throw err;
      }
    }
    // Clears a deletion error of an earlier pass.
    updateConditionsDeleting(status);
    if (!allStoresEmpty(ctx.stores)) return;
    status.phase = KubeVirtPhase.Deleted;
    kv.metadata = { ...kv.metadata, finalizers: withoutKubeVirtFinalizers(kv.metadata?.finalizers) };
    this.logger.info("KubeVirt deleted");
  }
}

function withObservedApiVersion(kv: KubeVirtCR): KubeVirtCR {
  return {
    ...kv,
    metadata: {
      ...kv.metadata,
      annotations: {
        ...kv.metadata?.annotations,
        [LATEST_OBSERVED_API_VERSION_ANNOTATION]: API_LATEST_VERSION,
        [STORAGE_OBSERVED_API_VERSION_ANNOTATION]: API_STORAGE_VERSION,
      },
    },
  };
}
