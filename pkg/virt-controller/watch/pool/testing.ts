// The pool controller wired to a FakeApiServer through real clients and informers, for tests that drive
// syncs by hand (`execute(key)`), make chosen requests fail, and assert the writes, objects and events.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { VirtualMachinePool } from "../../../api/generated/v1beta1.js";
import { KubeClient } from "../../../controller/client.js";
import { byControllerUID, ControllerUIDIndex } from "../../../controller/indexers.js";
import { resourceInformer } from "../../../controller/informer.js";
import { silentLogger } from "../../../controller/log.js";
import {
  controllerRevisionsGVR,
  toStored,
  virtualMachineInstancesGVR,
  virtualMachinePoolsGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
  type StoredVMPool,
} from "../../../controller/resources.js";
import { eventLog, startInformers, takeQueued } from "../../../controller/testing/controller-harness.js";
import { FakeApiServer } from "../../../controller/testing/fake-apiserver.js";
import { FaultyTransport } from "../../../controller/testing/faulty-transport.js";
import { KubeVirtAPIVersion, VirtualMachinePoolRevisionName } from "../../../util/constants.js";
import type { RandomInt } from "./pool-policy.js";
import { newPoolRevision, type PoolRevision } from "./pool-revisions.js";
import { PoolController } from "./pool.js";
import { newPoolVM } from "./pool-vms.js";

export const Tables = {
  vms: "kubevirt.io/virtualmachines",
  vmis: "kubevirt.io/virtualmachineinstances",
  pools: "pool.kubevirt.io/virtualmachinepools",
  revisions: "apps/controllerrevisions",
} as const;

export interface PoolEnv {
  server: FakeApiServer;
  controller: PoolController;
  transport: FaultyTransport;
  /** `<type> <reason> <message>` of every event recorded. */
  events: string[];
  /** The keys the informers' handlers queued since the last call (the queue is not run by a worker). */
  takeQueued(): Promise<string[]>;
  stop(): void;
}

export interface PoolEnvOptions {
  /** Upstream's tests use a burst of 10. */
  burstReplicas?: number;
  /** Default: always 0, a fixed Random order. */
  random?: RandomInt;
}

/** A controller on `server`, its caches synced; pool changes are queued without upstream's delay. */
export async function startPoolEnv(
  server = new FakeApiServer(),
  options: PoolEnvOptions = {},
): Promise<PoolEnv> {
  const informerClient = new KubeClient(server);
  const transport = new FaultyTransport(server);
  const stop = new AbortController();
  const logger = silentLogger;
  const vms = resourceInformer<StoredVM>(informerClient, virtualMachinesGVR, { logger });
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, { logger });
  const pools = resourceInformer<StoredVMPool>(informerClient, virtualMachinePoolsGVR, { logger });
  const revisions = resourceInformer<PoolRevision>(informerClient, controllerRevisionsGVR, {
    logger,
    indexers: { [ControllerUIDIndex]: byControllerUID },
  });
  const { events, recorder } = eventLog();
  const controller = new PoolController({
    client: new KubeClient(transport),
    vms,
    vmis,
    pools,
    revisions,
    recorder,
    burstReplicas: options.burstReplicas ?? 10,
    clock: { now: () => server.now() },
    logger,
    random: options.random ?? (() => 0),
    enqueueDelayMs: 0,
  });
  await startInformers(server, [vms, vmis, pools, revisions], Object.values(Tables), stop.signal);
  return {
    server,
    controller,
    transport,
    events,
    takeQueued: () => takeQueued(server, controller.queue),
    stop: () => stop.abort(),
  };
}

/** upstream's DefaultPool: VMs labelled selector=value, a container disk and a masquerade interface. */
export function poolFixture(replicas: number | undefined, name = "pool"): StoredVMPool {
  return toStored<VirtualMachinePool>({
    apiVersion: "pool.kubevirt.io/v1beta1",
    kind: "VirtualMachinePool",
    metadata: { name, namespace: "default" },
    spec: {
      replicas,
      selector: { matchLabels: { selector: "value" } },
      virtualMachineTemplate: {
        metadata: { labels: { selector: "value" }, annotations: { note: "from the template" } },
        spec: {
          runStrategy: "Always",
          template: {
            metadata: { labels: { selector: "value" } },
            spec: {
              domain: {
                devices: { interfaces: [{ name: "default", masquerade: {} }] },
                memory: { guest: "128Mi" },
              },
              networks: [{ name: "default", pod: {} }],
              volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
            },
          },
        },
      },
    },
  });
}

/** The pool's VM of `index` as the controller makes it from `pool`, labelled with `revision`. */
export function poolVMFixture(pool: StoredVMPool, index: number, revision = newPoolRevision(pool)): StoredVM {
  const name = `${pool.metadata?.name ?? ""}-${index}`;
  return newPoolVM(pool, name, index, revision.metadata?.name ?? "");
}

/** Ready: the VM's Ready condition as the VM controller copies it from a ready VMI. */
export function markReady(vm: StoredVM): StoredVM {
  vm.status = { ...vm.status, conditions: [{ type: "Ready", status: "True" }] };
  return vm;
}

/** A Running, Ready VMI of the VM, started from `revision` (the label the VM's template had then). */
export function vmiFixture(vm: StoredVM, revision: string | undefined): StoredVMI {
  const labels = { ...vm.spec.template.metadata?.labels };
  if (revision === undefined) delete labels[VirtualMachinePoolRevisionName];
  else labels[VirtualMachinePoolRevisionName] = revision;
  return toStored<VirtualMachineInstance>({
    apiVersion: KubeVirtAPIVersion,
    kind: "VirtualMachineInstance",
    metadata: {
      name: vm.metadata?.name,
      namespace: vm.metadata?.namespace,
      labels,
      // As virt-controller's VMIs have: a deletion leaves the VMI in place until virt-handler is done.
      finalizers: ["kubevirt.io/foregroundDeleteVirtualMachine"],
      ownerReferences: [
        {
          apiVersion: KubeVirtAPIVersion,
          kind: "VirtualMachine",
          name: vm.metadata?.name ?? "",
          uid: vm.metadata?.uid ?? "",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(vm.spec.template.spec ?? { domain: { devices: {} } }),
    status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
  });
}
