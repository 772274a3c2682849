// The migration controller wired to a FakeApiServer through real clients and informers (the shared
// controller harness), for tests that drive syncs by hand, play the kubelet's and the virt-handlers' part
// by mutating the stored objects, and assert the writes and events.
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { Pod } from "../../../api/core/v1/pod.js";
import { resourceInformer } from "../../../controller/informer.js";
import { silentLogger } from "../../../controller/log.js";
import type { KubeObject } from "../../../controller/object.js";
import {
  coreGVR,
  toStored,
  virtualMachineInstancesGVR,
  type StoredVMI,
} from "../../../controller/resources.js";
import {
  eventLog,
  fakeClusterClients,
  startInformers,
} from "../../../controller/testing/controller-harness.js";
import type { FakeApiServer } from "../../../controller/testing/fake-apiserver.js";
import { tableOf } from "../../../controller/testing/fake-apiserver.js";
import type { FaultyTransport } from "../../../controller/testing/faulty-transport.js";
import { clusterWith } from "../../../defaults/testing.js";
import type { KubeVirtConfiguration } from "../../../api/generated/v1.js";
import { TemplateService } from "../../services/template.js";
import { TestLauncherSettings } from "../../testing/controller-env.js";
import { MigrationController } from "./migration.js";
import {
  byVMIName,
  ByVMINameIndex,
  migrationPoliciesGVR,
  virtualMachineInstanceMigrationsGVR,
  type StoredMigrationPolicy,
  type StoredVMIM,
} from "./vmim.js";

export const Tables = {
  vmis: "kubevirt.io/virtualmachineinstances",
  migrations: tableOf(virtualMachineInstanceMigrationsGVR),
  policies: tableOf(migrationPoliciesGVR),
  pods: "/pods",
  nodes: "/nodes",
  namespaces: "/namespaces",
} as const;

const versionAnnotations = {
  "kubevirt.io/latest-observed-api-version": "v1",
  "kubevirt.io/storage-observed-api-version": "v1",
};

export interface MigrationEnv {
  server: FakeApiServer;
  transport: FaultyTransport;
  controller: MigrationController;
  events: string[];
  /** One sync of the migration, then the informers catch up. */
  sync(name?: string): Promise<void>;
  stop(): void;
}

export async function startMigrationEnv(configuration: KubeVirtConfiguration = {}): Promise<MigrationEnv> {
  const { server, informerClient, transport, client, stop } = fakeClusterClients();
  const logger = silentLogger;
  const config = clusterWith(configuration);
  const migrations = resourceInformer<StoredVMIM>(informerClient, virtualMachineInstanceMigrationsGVR, {
    logger,
    indexers: { [ByVMINameIndex]: byVMIName },
  });
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, { logger });
  const pods = resourceInformer<Pod>(informerClient, coreGVR.pods, { labelSelector: "kubevirt.io", logger });
  const migrationPolicies = resourceInformer<StoredMigrationPolicy>(informerClient, migrationPoliciesGVR, {
    logger,
  });
  const nodes = resourceInformer<KubeObject>(informerClient, coreGVR.nodes, { logger });
  const { events, recorder } = eventLog();
  const templateService = new TemplateService(
    TestLauncherSettings,
    () => config,
    () => undefined,
    () => 0,
  );
  const controller = new MigrationController({
    client,
    migrations,
    vmis,
    pods,
    migrationPolicies,
    nodes,
    templateService,
    clusterConfig: () => config,
    recorder,
    clock: { now: () => server.now(), sleep: async () => undefined },
    logger,
  });
  await startInformers(
    server,
    [migrations, vmis, pods, migrationPolicies, nodes],
    [Tables.vmis, Tables.migrations, Tables.policies, Tables.pods, Tables.nodes],
    stop.signal,
  );
  server.seed(Tables.namespaces, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "default", labels: { team: "a" } },
  });
  server.seed(Tables.nodes, { apiVersion: "v1", kind: "Node", metadata: { name: "node01", labels: {} } });
  await server.settle();
  return {
    server,
    transport,
    controller,
    events,
    sync: async (name = "mig") => {
      await controller.execute(`default/${name}`);
      await server.settle();
    },
    stop: () => {
      stop.abort();
      controller.queue.shutDown();
    },
  };
}

/** A running VMI on node01 with its launcher pod there. */
export function runningVMIFixture(name = "vmi", labels: Record<string, string> = {}): StoredVMI {
  return toStored<VirtualMachineInstance>({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name,
      namespace: "default",
      uid: `${name}-uid`,
      labels,
      annotations: { ...versionAnnotations },
    },
    spec: {
      domain: { devices: {}, memory: { guest: "128Mi" }, resources: { requests: { memory: "128Mi" } } },
      volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
    },
    status: { phase: "Running", nodeName: "node01", selinuxContext: "none", runtimeUser: 107 },
  });
}

/** The VMI's running source launcher pod on node01. */
export function sourcePodFixture(vmi: StoredVMI): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `virt-launcher-${vmi.metadata?.name ?? ""}-src`,
      namespace: "default",
      creationTimestamp: "2025-12-31T00:00:00Z",
      labels: { "kubevirt.io": "virt-launcher", "kubevirt.io/created-by": vmi.metadata?.uid ?? "" },
      ownerReferences: [
        {
          apiVersion: "kubevirt.io/v1",
          kind: "VirtualMachineInstance",
          name: vmi.metadata?.name ?? "",
          uid: vmi.metadata?.uid ?? "",
          controller: true,
        },
      ],
    },
    spec: { nodeName: "node01", containers: [{ name: "compute", image: "launcher" }] },
    status: {
      phase: "Running",
      containerStatuses: [
        {
          name: "compute",
          image: "launcher",
          imageID: "launcher@sha256:aaa",
          ready: true,
          restartCount: 0,
          state: { running: {} },
        },
        {
          name: "volumecontainerdisk",
          image: "kubevirt-ts/test-guest:latest",
          imageID: "kubevirt-ts/test-guest@sha256:feed",
          ready: true,
          restartCount: 0,
          state: { running: {} },
        },
      ],
    },
  };
}

export function migrationFixture(
  name = "mig",
  vmiName = "vmi",
  annotations: Record<string, string> = {},
): StoredVMIM {
  return {
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstanceMigration",
    metadata: {
      name,
      namespace: "default",
      annotations: { ...versionAnnotations, ...annotations },
      labels: { "kubevirt.io/vmi-name": vmiName },
      finalizers: ["kubevirt.io/migrationJobFinalize"],
    },
    spec: { vmiName },
  };
}
