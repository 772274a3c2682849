// The disruption-budget controller wired to a FakeApiServer through real clients and informers (the shared
// controller harness), for tests that drive syncs by hand and play older releases' part by seeding
// PodDisruptionBudgets.
import type { Pod } from "../../../../api/core/v1/pod.js";
import { resourceInformer } from "../../../../controller/informer.js";
import { silentLogger } from "../../../../controller/log.js";
import { newControllerRef } from "../../../../controller/object.js";
import {
  coreGVR,
  podDisruptionBudgetsGVR,
  virtualMachineInstancesGVR,
  type StoredVMI,
} from "../../../../controller/resources.js";
import {
  eventLog,
  fakeClusterClients,
  startInformers,
} from "../../../../controller/testing/controller-harness.js";
import { tableOf, type FakeApiServer } from "../../../../controller/testing/fake-apiserver.js";
import type { FaultyTransport } from "../../../../controller/testing/faulty-transport.js";
import { CreatedByLabel } from "../../../../util/constants.js";
import { Tables as MigrationTables } from "../../migration/testing.js";
import { virtualMachineInstanceMigrationsGVR, type StoredVMIM } from "../../migration/vmim.js";
import { DisruptionBudgetController } from "./disruptionbudget.js";
import type { PodDisruptionBudget } from "./vmi-owned-pdbs.js";

export const Tables = { ...MigrationTables, pdbs: tableOf(podDisruptionBudgetsGVR) } as const;

export interface DisruptionBudgetEnv {
  server: FakeApiServer;
  transport: FaultyTransport;
  controller: DisruptionBudgetController;
  events: string[];
  /** One sync of the VMI's key, then the informers catch up; what the sync asked for. */
  sync(key?: string): Promise<Awaited<ReturnType<DisruptionBudgetController["execute"]>>>;
  stop(): void;
}

export async function startDisruptionBudgetEnv(): Promise<DisruptionBudgetEnv> {
  const { server, informerClient, transport, client, stop } = fakeClusterClients();
  const logger = silentLogger;
  const vmis = resourceInformer<StoredVMI>(informerClient, virtualMachineInstancesGVR, { logger });
  const pdbs = resourceInformer<PodDisruptionBudget>(informerClient, podDisruptionBudgetsGVR, { logger });
  const pods = resourceInformer<Pod>(informerClient, coreGVR.pods, { labelSelector: "kubevirt.io", logger });
  const migrations = resourceInformer<StoredVMIM>(informerClient, virtualMachineInstanceMigrationsGVR, {
    logger,
  });
  const { events, recorder } = eventLog();
  const controller = new DisruptionBudgetController({
    client,
    vmis,
    pdbs,
    pods,
    migrations,
    recorder,
    clock: { now: () => server.now(), sleep: async () => undefined },
    logger,
  });
  await startInformers(
    server,
    [vmis, pdbs, pods, migrations],
    [Tables.vmis, Tables.pdbs, Tables.pods, Tables.migrations],
    stop.signal,
  );
  return {
    server,
    transport,
    controller,
    events,
    sync: async (key = "default/testvm") => {
      const result = await controller.execute(key);
      await server.settle();
      return result;
    },
    stop: () => {
      stop.abort();
      controller.queue.shutDown();
    },
  };
}

/** A budget as releases before v1.6 made one for a VMI: owned by it, keeping its launcher pod up. */
export function pdbFixture(vmi: StoredVMI, minAvailable = 1, name = `pdb-${vmi.metadata?.name ?? ""}`) {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: {
      name,
      namespace: vmi.metadata?.namespace ?? "",
      ownerReferences: [newControllerRef(vmi, "kubevirt.io/v1", "VirtualMachineInstance")],
    },
    spec: {
      minAvailable,
      selector: { matchLabels: { [CreatedByLabel]: vmi.metadata?.uid ?? "" } },
    },
  } satisfies PodDisruptionBudget;
}
