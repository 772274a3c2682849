// The VM and VMI controllers wired to a FakeApiServer through real clients and informers (the shared
// controller harness, as the replica set and pool tests have it), for unit tests that drive syncs by hand
// (`execute(key)`), make chosen requests fail, and assert the writes they make.
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { byControllerUID, ControllerUIDIndex } from "../../controller/indexers.js";
import { resourceInformer, type Informer } from "../../controller/informer.js";
import { silentLogger } from "../../controller/log.js";
import { clusterWith } from "../../defaults/testing.js";
import type { ClusterConfig } from "../../virt-config/cluster-config.js";
import {
  controllerRevisionsGVR,
  coreGVR,
  toStored,
  virtualMachineInstancesGVR,
  virtualMachinesGVR,
  type StoredVM,
  type StoredVMI,
} from "../../controller/resources.js";
import type { Pod } from "../../api/core/v1/pod.js";
import type { PersistentVolumeClaim } from "../../api/core/v1/persistentvolumeclaim.js";
import type { LauncherSettings } from "../services/render-context.js";
import { TemplateService } from "../services/template.js";
import type { ControllerRevision } from "../watch/vm/vm-revision.js";
import { VMController, type VMControllerDeps } from "../watch/vm/vm.js";
import { VMIController } from "../watch/vmi/vmi.js";
import type { FakeApiServer } from "../../controller/testing/fake-apiserver.js";
import { tableOf } from "../../controller/testing/fake-apiserver.js";
import type { FaultyTransport } from "../../controller/testing/faulty-transport.js";
import { eventLog, fakeClusterClients, startInformers } from "../../controller/testing/controller-harness.js";
import {
  clusterInstancetypesGVR,
  clusterPreferencesGVR,
  instancetypesGVR,
  preferencesGVR,
} from "../../instancetype/find/resources.js";
import { instancetypeInformerList, newInstancetypeInformers } from "../watch/vm/vm-instancetype.js";
import { networkAttachmentDefinitionsGVR } from "../../network/multus/nad.js";

export const Tables = {
  vms: "kubevirt.io/virtualmachines",
  vmis: "kubevirt.io/virtualmachineinstances",
  pods: "/pods",
  pvcs: "/persistentvolumeclaims",
  revisions: "apps/controllerrevisions",
  instancetypes: tableOf(instancetypesGVR),
  clusterInstancetypes: tableOf(clusterInstancetypesGVR),
  preferences: tableOf(preferencesGVR),
  clusterPreferences: tableOf(clusterPreferencesGVR),
} as const;

export const TestLauncherSettings: LauncherSettings = {
  launcherImage: "quay.io/kubevirt/virt-launcher:v1.7.0",
  launcherQemuTimeoutSeconds: 240,
  virtShareDir: "/var/run/kubevirt",
  ephemeralDiskDir: "/var/run/kubevirt-ephemeral-disks",
  containerDiskDir: "/var/run/kubevirt/container-disks",
  hotplugDiskDir: "/var/run/kubevirt/hotplug-disks",
  imagePullSecret: "",
};

export interface ControllerEnv {
  server: FakeApiServer;
  /** What the controllers send requests through; informers read the server directly. */
  transport: FaultyTransport;
  vmController: VMController;
  vmiController: VMIController;
  /** `<type> <reason> <message>` of every event recorded. */
  events: string[];
  informers: {
    vms: Informer<StoredVM>;
    vmis: Informer<StoredVMI>;
    pods: Informer<Pod>;
    pvcs: Informer<PersistentVolumeClaim>;
  };
  stop(): void;
}

export async function startControllerEnv(
  config: ClusterConfig = clusterWith(),
  options: Pick<VMControllerDeps, "vmiVolumes" | "instancetypes"> = {},
): Promise<ControllerEnv> {
  const { server, informerClient, transport, client, stop } = fakeClusterClients();
  const logger = silentLogger;
  const vms = resourceInformer<StoredVM>(informerClient, virtualMachinesGVR, { logger });
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, { logger });
  const pods = resourceInformer<Pod>(informerClient, coreGVR.pods, { labelSelector: "kubevirt.io", logger });
  const pvcs = resourceInformer<PersistentVolumeClaim>(informerClient, coreGVR.persistentVolumeClaims, {
    logger,
  });
  const revisions = resourceInformer<ControllerRevision>(informerClient, controllerRevisionsGVR, {
    logger,
    indexers: { [ControllerUIDIndex]: byControllerUID },
  });
  const instancetypeInformers = newInstancetypeInformers(informerClient, { logger });
  const nads = client.resource(networkAttachmentDefinitionsGVR);
  const { events, recorder } = eventLog();
  const clock = { now: () => server.now(), sleep: async () => undefined };
  const vmController = new VMController({
    client,
    vms,
    vmis,
    revisions,
    pvcs,
    instancetypeInformers,
    clusterConfig: () => config,
    recorder,
    clock,
    logger,
    random: () => 0,
    ...options,
  });
  const templateService = new TemplateService(
    TestLauncherSettings,
    () => config,
    (namespace, name) => pvcs.getByName(namespace, name),
    () => 0,
    (namespace, name) => nads.get(namespace, name),
  );
  const vmiController = new VMIController({
    client,
    vms,
    vmis,
    pods,
    pvcs,
    templateService,
    clusterConfig: () => config,
    recorder,
    clock,
    logger,
  });
  await startInformers(
    server,
    [vms, vmis, pods, pvcs, revisions, ...instancetypeInformerList(instancetypeInformers)],
    Object.values(Tables),
    stop.signal,
  );
  return {
    server,
    transport,
    vmController,
    vmiController,
    events,
    informers: { vms, vmis, pods, pvcs },
    stop: () => stop.abort(),
  };
}

export function vmFixture(name: string, spec: Partial<VirtualMachine["spec"]> = {}): StoredVM {
  return toStored<VirtualMachine>({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachine",
    metadata: {
      name,
      namespace: "default",
      annotations: {
        "kubevirt.io/latest-observed-api-version": "v1",
        "kubevirt.io/storage-observed-api-version": "v1",
      },
    },
    spec: {
      template: {
        metadata: { labels: { "kubevirt.io/vm": name } },
        spec: {
          domain: {
            devices: { interfaces: [{ name: "default", masquerade: {} }] },
            firmware: { uuid: "5d307ca9-b3ef-428c-8861-06e72d69f223" },
            memory: { guest: "128Mi" },
          },
          networks: [{ name: "default", pod: {} }],
          volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
        },
      },
      ...spec,
    },
  });
}

export function vmiFixture(
  name: string,
  status: VirtualMachineInstance["status"] = { phase: "Pending" },
): StoredVMI {
  return toStored<VirtualMachineInstance>({
    apiVersion: "kubevirt.io/v1",
    kind: "VirtualMachineInstance",
    metadata: {
      name,
      namespace: "default",
      annotations: {
        "kubevirt.io/latest-observed-api-version": "v1",
        "kubevirt.io/storage-observed-api-version": "v1",
      },
      finalizers: ["kubevirt.io/foregroundDeleteVirtualMachine"],
    },
    spec: {
      domain: {
        devices: { interfaces: [{ name: "default", masquerade: {} }] },
        memory: { guest: "128Mi" },
        resources: { requests: { memory: "128Mi" } },
      },
      networks: [{ name: "default", pod: {} }],
      volumes: [{ name: "containerdisk", containerDisk: { image: "kubevirt-ts/test-guest:latest" } }],
    },
    status,
  });
}

/** One sync of `key` by the VM or VMI controller, then the informers catch up with what it wrote. */
export async function syncOnce(env: ControllerEnv, controller: "vm" | "vmi", key: string): Promise<void> {
  await (controller === "vm" ? env.vmController : env.vmiController).execute(key);
  await env.server.settle();
}

/** Syncs until a sync writes nothing (at most five times); returns every write made. */
export async function syncUntilStable(
  env: ControllerEnv,
  controller: "vm" | "vmi",
  key: string,
): Promise<string[]> {
  const all: string[] = [];
  for (let round = 0; round < 5; round++) {
    await syncOnce(env, controller, key);
    const writes = env.server.takeWrites();
    if (writes.length === 0) return all;
    all.push(...writes);
  }
  throw new Error(`still writing after 5 syncs: ${all.join("; ")}`);
}
