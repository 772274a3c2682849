// virt-controller as a process (upstream's watch/application.go): one replica at a time leads, through
// the `virt-controller` Lease in the install namespace; the leader runs the informers and the VM, VMI,
// replica set, pool, node, migration and evacuation controllers. Losing the lease ends the process (upstream exits), so a fresh start rebuilds
// all state from the apiserver. /healthz and /leader are served by every replica.
import { setMaxListeners } from "node:events";
import type { KubeClient } from "../../controller/client.js";
import { clientEventSink, EventRecorder } from "../../controller/events.js";
import { byControllerUID, ControllerUIDIndex, NodeIndex, vmiByNode } from "../../controller/indexers.js";
import { resourceInformer, type Informer } from "../../controller/informer.js";
import { LeaderElector } from "../../controller/leader-election.js";
import { LeaseLock } from "../../controller/lease-lock.js";
import type { Logger } from "../../controller/log.js";
import type { KubeObject } from "../../controller/object.js";
import { ClusterConfigSource } from "../../virt-config/cluster-config-source.js";
import { AppLabel } from "../../util/constants.js";
import { HealthServer } from "../../healthz/health-server.js";
import { MetricsEndpoint } from "../../monitoring/metrics/common/endpoint.js";
import { ControllerMetrics } from "../../monitoring/metrics/virt-controller/metrics.js";
import { metricsCaches } from "./metrics-caches.js";
import {
  controllerRevisionsGVR,
  coreGVR,
  podDisruptionBudgetsGVR,
  virtualMachineInstanceReplicaSetsGVR,
  virtualMachineInstancesGVR,
  virtualMachinePoolsGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
  type StoredVMIRS,
  type StoredVMPool,
} from "../../controller/resources.js";
import type { Pod } from "../../api/core/v1/pod.js";
import type { PersistentVolumeClaim } from "../../api/core/v1/persistentvolumeclaim.js";
import type { LauncherSettings } from "../services/render-context.js";
import { TemplateService } from "../services/template.js";
import type { ControllerRevision } from "./vm/vm-revision.js";
import { VMController } from "./vm/vm.js";
import {
  instancetypeInformerList,
  newInstancetypeInformers,
  type InstancetypeInformers,
} from "./vm/vm-instancetype.js";
import { VMIController } from "./vmi/vmi.js";
import { NodeController, type Node } from "./node/node.js";
import { ReplicaSetController } from "./replicaset/replicaset.js";
import { PoolController } from "./pool/pool.js";
import { networkAttachmentDefinitionsGVR } from "../../network/multus/nad.js";
import { MigrationController } from "./migration/migration.js";
import { DisruptionBudgetController } from "./drain/disruptionbudget/disruptionbudget.js";
import type { PodDisruptionBudget } from "./drain/disruptionbudget/vmi-owned-pdbs.js";
import { EvacuationController } from "./drain/evacuation/evacuation.js";
import {
  byVMIName,
  ByVMINameIndex,
  migrationPoliciesGVR,
  virtualMachineInstanceMigrationsGVR,
  type StoredMigrationPolicy,
  type StoredVMIM,
} from "./migration/vmim.js";

export const LeaseName = "virt-controller";
export const ComponentName = "virt-controller";

export interface VirtControllerOptions {
  client: KubeClient;
  /** Where KubeVirt is installed: the Lease and the KubeVirt CR live here. */
  namespace: string;
  /** This replica's name in the Lease (the Pod name). */
  identity: string;
  launcher: LauncherSettings;
  vmWorkers: number;
  vmiWorkers: number;
  rsWorkers: number;
  poolWorkers: number;
  /** 0 runs no node controller (tests of other controllers on a shared cluster). */
  nodeWorkers: number;
  /** `--node-heartbeat-timeout`; absent: upstream's 5 minutes. */
  nodeHeartbeatTimeoutMs?: number;
  /** `--migration-controller-threads`; absent: 2 like the other controllers. */
  migrationWorkers?: number;
  /** `--evacuation-controller-threads`; absent: 2 like the other controllers. */
  evacuationWorkers?: number;
  /** `--disruption-budget-controller-threads`; absent: upstream's 3. */
  disruptionBudgetWorkers?: number;
  logger: Logger;
  /** Absent: no HTTP endpoints (in-process tests). */
  http?: { bindAddress: string; port: number; certFile: string; keyFile: string };
  leaderElection?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** The live configuration; default: the KubeVirt CR of `namespace`. */
  clusterConfig?: ClusterConfigSource;
  /** Only VMs, VMIs, replica sets, pools and Pods of this namespace (tests sharing a cluster); absent: all. */
  watchNamespace?: string;
  /** Served on /metrics; give its restClient to the client's transport. Absent: a fresh registry. */
  metrics?: ControllerMetrics;
}

/** What leading needs of an informer of any kind. */
type SyncingInformer = Pick<Informer<KubeObject>, "run" | "waitForSync">;

interface Informers {
  vms: Informer<StoredVM>;
  vmis: Informer<StoredVMI>;
  pods: Informer<Pod>;
  revisions: Informer<ControllerRevision>;
  replicaSets: Informer<StoredVMIRS>;
  pools: Informer<StoredVMPool>;
  pvcs: Informer<PersistentVolumeClaim>;
  nodes: Informer<Node>;
  migrations: Informer<StoredVMIM>;
  migrationPolicies: Informer<StoredMigrationPolicy>;
  pdbs: Informer<PodDisruptionBudget>;
  instancetypeInformers: InstancetypeInformers;
}

export class VirtControllerApp {
  private readonly client: KubeClient;
  private readonly recorder: EventRecorder;
  private readonly config: ClusterConfigSource;
  private leading = false;
  private leadership: Promise<void> | undefined;
  readonly metrics: ControllerMetrics;
  /** Bound port of the health server, once started. */
  port: number | undefined;

  constructor(private readonly options: VirtControllerOptions) {
    this.client = options.client;
    this.recorder = new EventRecorder(
      clientEventSink(this.client),
      { component: ComponentName, host: options.identity },
      { logger: options.logger },
    );
    this.config =
      options.clusterConfig ??
      ClusterConfigSource.forNamespace(this.client, options.namespace, options.logger);
    this.metrics = options.metrics ?? new ControllerMetrics(options.logger);
  }

  private get migrationWorkers(): number {
    return this.options.migrationWorkers ?? 2;
  }

  private get evacuationWorkers(): number {
    return this.options.evacuationWorkers ?? 2;
  }

  private get disruptionBudgetWorkers(): number {
    return this.options.disruptionBudgetWorkers ?? 3;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Runs until the signal aborts; rejects if leadership is lost while running. */
  async run(signal: AbortSignal): Promise<void> {
    const health =
      this.options.http &&
      new HealthServer({
        ...this.options.http,
        transport: this.client.transport,
        isLeader: () => this.leading,
        configResourceVersion: () => this.config.configResourceVersion(),
        metrics: new MetricsEndpoint(this.metrics.registry),
      });
    this.port = await health?.start();
    const configInformer = this.config.run(signal);
    let lost = false;
    const elector = new LeaderElector({
      lock: new LeaseLock(
        this.client,
        this.options.namespace,
        LeaseName,
        this.options.identity,
        this.recorder,
      ),
      name: LeaseName,
      logger: this.options.logger,
      ...this.options.leaderElection,
      callbacks: {
        onStartedLeading: (leaderSignal) => {
          this.leadership = this.lead(leaderSignal);
          return this.leadership;
        },
        onStoppedLeading: () => {
          if (this.leading && !signal.aborted) lost = true;
          this.leading = false;
        },
      },
    });
    // Ready to take the lead once the elector runs (upstream sets it just before, clears it after).
    this.metrics.component.ready.set(1);
    try {
      await elector.run(signal);
    } finally {
      this.metrics.component.ready.set(0);
      await this.leadership;
      await configInformer;
      await health?.stop();
      await this.recorder.shutdown();
    }
    if (lost) throw new Error("leaderelection lost");
  }

  private newInformers(): Informers {
    const scope = { logger: this.options.logger, namespace: this.options.watchNamespace };
    return {
      vms: resourceInformer<StoredVM>(this.client, virtualMachinesGVR, scope),
      // By node for the evacuation controller (upstream's "node" index).
      vmis: resourceInformer<StoredVMI>(this.client, virtualMachineInstancesGVR, {
        ...scope,
        indexers: { [NodeIndex]: vmiByNode },
      }),
      // Only Pods labelled kubevirt.io (launchers, hotplug and export Pods) concern virt-controller.
      pods: resourceInformer<Pod>(this.client, coreGVR.pods, { ...scope, labelSelector: AppLabel }),
      revisions: resourceInformer<ControllerRevision>(this.client, controllerRevisionsGVR, {
        ...scope,
        indexers: { [ControllerUIDIndex]: byControllerUID },
      }),
      replicaSets: resourceInformer<StoredVMIRS>(this.client, virtualMachineInstanceReplicaSetsGVR, scope),
      pools: resourceInformer<StoredVMPool>(this.client, virtualMachinePoolsGVR, scope),
      pvcs: resourceInformer<PersistentVolumeClaim>(this.client, coreGVR.persistentVolumeClaims, scope),
      // Nodes are cluster-wide whatever namespace the controller watches.
      nodes: resourceInformer<Node>(this.client, coreGVR.nodes, { logger: this.options.logger }),
      migrations: resourceInformer<StoredVMIM>(this.client, virtualMachineInstanceMigrationsGVR, {
        ...scope,
        indexers: { [ByVMINameIndex]: byVMIName },
      }),
      // MigrationPolicies are cluster-wide.
      migrationPolicies: resourceInformer<StoredMigrationPolicy>(this.client, migrationPoliciesGVR, {
        logger: this.options.logger,
      }),
      // The disruption-budget controller removes the budgets VMIs control.
      pdbs: resourceInformer<PodDisruptionBudget>(this.client, podDisruptionBudgetsGVR, scope),
      // Instance types and preferences the VM controller reads; the cluster kinds whatever the namespace.
      instancetypeInformers: newInstancetypeInformers(this.client, scope),
    };
  }

  /** Leader only: fresh informers and controllers, started once every cache has synced. */
  private async lead(signal: AbortSignal): Promise<void> {
    const { logger } = this.options;
    this.leading = true;
    // Every informer, queue and pending sleep listens for the end of leadership.
    setMaxListeners(100, signal);
    const informers = this.newInformers();
    const nads = this.client.resource(networkAttachmentDefinitionsGVR);
    const templateService = new TemplateService(
      this.options.launcher,
      () => this.config.current(),
      (namespace, name) => informers.pvcs.getByName(namespace, name),
      Math.random,
      (namespace, name) => nads.get(namespace, name),
    );
    const vmController = new VMController({
      client: this.client,
      ...informers,
      clusterConfig: () => this.config.current(),
      recorder: this.recorder,
      logger,
    });
    const vmiController = new VMIController({
      client: this.client,
      ...informers,
      templateService,
      clusterConfig: () => this.config.current(),
      recorder: this.recorder,
      logger,
    });
    const rsController = new ReplicaSetController({
      client: this.client,
      ...informers,
      recorder: this.recorder,
      logger,
    });
    const poolController = new PoolController({
      client: this.client,
      ...informers,
      recorder: this.recorder,
      logger,
    });
    const nodeController = new NodeController({
      client: this.client,
      ...informers,
      heartbeatTimeoutMs: this.options.nodeHeartbeatTimeoutMs,
      recorder: this.recorder,
      logger,
    });
    const migrationController = new MigrationController({
      client: this.client,
      ...informers,
      templateService,
      clusterConfig: () => this.config.current(),
      recorder: this.recorder,
      logger,
    });
    const evacuationController = new EvacuationController({
      client: this.client,
      ...informers,
      clusterConfig: () => this.config.current(),
      recorder: this.recorder,
      logger,
    });
    const disruptionBudgetController = new DisruptionBudgetController({
      client: this.client,
      ...informers,
      recorder: this.recorder,
      logger,
    });
    const leaderInformers: SyncingInformer[] = [
      informers.vms,
      informers.vmis,
      informers.pods,
      informers.revisions,
      informers.replicaSets,
      informers.pools,
      informers.pvcs,
      informers.nodes,
      informers.migrations,
      informers.migrationPolicies,
      informers.pdbs,
      ...instancetypeInformerList(informers.instancetypeInformers),
    ];
    const stopMetrics = this.metrics.lead(
      metricsCaches(informers, () => this.config.current()),
      informers.vmis,
      informers.migrations,
    );
    const running = leaderInformers.map((informer) => informer.run(signal));
    const synced = await Promise.all(
      [...leaderInformers, this.config].map((informer) => informer.waitForSync(signal)),
    );
    if (synced.every(Boolean)) {
      logger.info(
        {
          vmWorkers: this.options.vmWorkers,
          vmiWorkers: this.options.vmiWorkers,
          rsWorkers: this.options.rsWorkers,
          poolWorkers: this.options.poolWorkers,
          nodeWorkers: this.options.nodeWorkers,
          migrationWorkers: this.migrationWorkers,
          evacuationWorkers: this.evacuationWorkers,
          disruptionBudgetWorkers: this.disruptionBudgetWorkers,
        },
        "STARTING controllers",
      );
      this.metrics.component.leading.set(1);
      await Promise.all([
        vmController.run(this.options.vmWorkers, signal),
        vmiController.run(this.options.vmiWorkers, signal),
        rsController.run(this.options.rsWorkers, signal),
        poolController.run(this.options.poolWorkers, signal),
        nodeController.run(this.options.nodeWorkers, signal),
        migrationController.run(this.migrationWorkers, signal),
        evacuationController.run(this.evacuationWorkers, signal),
        disruptionBudgetController.run(this.disruptionBudgetWorkers, signal),
      ]);
    }
    await Promise.all(running);
    stopMetrics();
    this.metrics.component.leading.set(0);
  }
}
