// The replica set controller wired to a FakeApiServer through real clients and informers, for tests that
// drive syncs by hand (`execute(key)`), make chosen requests fail, and assert the writes and events.
import type { VirtualMachineInstance, VirtualMachineInstanceReplicaSet } from "../../../api/generated/v1.js";
import { KubeClient } from "../../../controller/client.js";
import { resourceInformer } from "../../../controller/informer.js";
import { silentLogger } from "../../../controller/log.js";
import {
  toStored,
  virtualMachineInstanceReplicaSetsGVR,
  virtualMachineInstancesGVR,
  type StoredVMI,
  type StoredVMIRS,
} from "../../../controller/resources.js";
import { FakeApiServer } from "../../../controller/testing/fake-apiserver.js";
import { eventLog, startInformers, takeQueued } from "../../../controller/testing/controller-harness.js";
import { FaultyTransport } from "../../../controller/testing/faulty-transport.js";
import { ReplicaSetController } from "./replicaset.js";
import { replicaSetOwnerRef } from "./replicaset-vmis.js";

export const Tables = {
  vmis: "kubevirt.io/virtualmachineinstances",
  replicaSets: "kubevirt.io/virtualmachineinstancereplicasets",
} as const;

const versionAnnotations = {
  "kubevirt.io/latest-observed-api-version": "v1",
  "kubevirt.io/storage-observed-api-version": "v1",
};

export interface ReplicaSetEnv {
  server: FakeApiServer;
  controller: ReplicaSetController;
  transport: FaultyTransport;
  /** `<type> <reason> <message>` of every event recorded. */
  events: string[];
  /** The keys the informers' handlers queued since the last call (the queue is not run by a worker). */
  takeQueued(): Promise<string[]>;
  stop(): void;
}

/** A controller (upstream's tests use a burst of 10) on `server`, its caches synced. */
export async function startReplicaSetEnv(
  server = new FakeApiServer(),
  burstReplicas = 10,
): Promise<ReplicaSetEnv> {
  const informerClient = new KubeClient(server);
  const transport = new FaultyTransport(server);
  const stop = new AbortController();
  const logger = silentLogger;
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, { logger });
  const replicaSets = resourceInformer<StoredVMIRS>(informerClient, virtualMachineInstanceReplicaSetsGVR, {
    logger,
  });
  const { events, recorder } = eventLog();
  const controller = new ReplicaSetController({
    client: new KubeClient(transport),
    vmis,
    replicaSets,
    recorder,
    burstReplicas,
    clock: { now: () => server.now() },
    logger,
  });
  await startInformers(server, [vmis, replicaSets], Object.values(Tables), stop.signal);
  return {
    server,
    controller,
    transport,
    events,
    takeQueued: () => takeQueued(server, controller.queue),
    stop: () => stop.abort(),
  };
}

/** upstream's defaultReplicaSet: VMIs labelled test=test, the status already showing the selector. */
export function replicaSetFixture(replicas: number | undefined, name = "rs"): StoredVMIRS {
  return toStored<VirtualMachineInstanceReplicaSet>({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceReplicaSet",
    metadata: { name, namespace: "default", annotations: { ...versionAnnotations } },
    spec: {
      replicas,
      selector: { matchLabels: { test: "test" } },
      template: {
        metadata: { labels: { test: "test" }, annotations: { note: "from the template" } },
        spec: {
          domain: { devices: {}, memory: { guest: "128Mi" } },
          volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
        },
      },
    },
    status: { labelSelector: "test=test" },
  });
}

/** A VMI labelled test=test, owned by `owner` when given. */
export function vmiFixture(
  name: string,
  owner?: StoredVMIRS,
  status: VirtualMachineInstance["status"] = { phase: "Running" },
): StoredVMI {
  return toStored<VirtualMachineInstance>({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name,
      namespace: "default",
      labels: { test: "test" },
      annotations: { ...versionAnnotations },
      ownerReferences: owner ? [replicaSetOwnerRef(owner)] : undefined,
    },
    spec: { domain: { devices: {} } },
    status,
  });
}

/** A VMI status whose Ready condition is the given one. */
export function readyStatus(ready: boolean, reason?: string): VirtualMachineInstance["status"] {
  return {
    phase: "Running",
    conditions: [{ type: "Ready", status: ready ? "True" : "False", ...(reason ? { reason } : {}) }],
  };
}
