// The evacuation controller wired to a FakeApiServer through real clients and informers (the shared
// controller harness), for tests that drive syncs by hand and play the eviction interceptor's, the
// migration controller's and the kubelet's part by mutating the stored objects.
import type { Pod } from "../../../../api/core/v1/pod.js";
import type { KubeVirtConfiguration } from "../../../../api/generated/v1.js";
import { NodeIndex, vmiByNode } from "../../../../controller/indexers.js";
import { resourceInformer } from "../../../../controller/informer.js";
import { silentLogger } from "../../../../controller/log.js";
import type { KubeObject } from "../../../../controller/object.js";
import { coreGVR, virtualMachineInstancesGVR, type StoredVMI } from "../../../../controller/resources.js";
import {
  eventLog,
  fakeClusterClients,
  startInformers,
} from "../../../../controller/testing/controller-harness.js";
import type { FakeApiServer } from "../../../../controller/testing/fake-apiserver.js";
import type { FaultyTransport } from "../../../../controller/testing/faulty-transport.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { Tables } from "../../migration/testing.js";
import { virtualMachineInstanceMigrationsGVR, type StoredVMIM } from "../../migration/vmim.js";
import { EvacuationController } from "./evacuation.js";

export { Tables };

export interface EvacuationEnv {
  server: FakeApiServer;
  transport: FaultyTransport;
  controller: EvacuationController;
  events: string[];
  /** One sync of the node, then the informers catch up; what the sync asked for. */
  sync(node?: string): Promise<Awaited<ReturnType<EvacuationController["execute"]>>>;
  stop(): void;
}

export async function startEvacuationEnv(configuration: KubeVirtConfiguration = {}): Promise<EvacuationEnv> {
  const { server, informerClient, transport, client, stop } = fakeClusterClients();
  const logger = silentLogger;
  const config = clusterWith(configuration);
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, {
    logger,
    indexers: { [NodeIndex]: vmiByNode },
  });
  const migrations = resourceInformer<StoredVMIM>(informerClient, virtualMachineInstanceMigrationsGVR, {
    logger,
  });
  const pods = resourceInformer<Pod>(informerClient, coreGVR.pods, { labelSelector: "kubevirt.io", logger });
  const nodes = resourceInformer<KubeObject>(informerClient, coreGVR.nodes, { logger });
  const { events, recorder } = eventLog();
  const controller = new EvacuationController({
    client,
    vmis,
    migrations,
    pods,
    nodes,
    clusterConfig: () => config,
    recorder,
    clock: { now: () => server.now(), sleep: async () => undefined },
    logger,
  });
  await startInformers(
    server,
    [vmis, migrations, pods, nodes],
    [Tables.vmis, Tables.migrations, Tables.pods, Tables.nodes],
    stop.signal,
  );
  for (const name of ["node01", "node02"]) {
    server.seed(Tables.nodes, { apiVersion: "v1", kind: "Node", metadata: { name } });
  }
  await server.settle();
  return {
    server,
    transport,
    controller,
    events,
    sync: async (node = "node01") => {
      const result = await controller.execute(node);
      await server.settle();
      return result;
    },
    stop: () => {
      stop.abort();
      controller.queue.shutDown();
    },
  };
}
