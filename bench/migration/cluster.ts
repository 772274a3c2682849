import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from "../../pkg/api/generated/v1.js";
import { MigrationSelectorLabel } from "../../pkg/util/constants.js";
import { BenchError } from "../common/bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlJson,
  lastLine,
  missingClusterFile,
  type KubectlOptions,
} from "../common/kubectl.js";
import { readyNodes, type Node, type Pod } from "./cluster-objects.js";

// The reads the benchmark makes through kubectl; each failure says what it was reading.

export interface Target extends KubectlOptions {
  namespace: string;
  vm: string;
}

/** The cluster answers and has the two Ready nodes a migration goes between; answers their names. */
export async function requireTwoReadyNodes(k: KubectlOptions): Promise<string[]> {
  const missing = await missingClusterFile(k);
  if (missing) throw new BenchError(`the cluster is not up: ${missing}; ${START_CLUSTER_HINT}`);
  let nodes: { items?: Node[] };
  try {
    nodes = (await kubectlJson(k, ["get", "nodes"])) as { items?: Node[] };
  } catch (error) {
    throw new BenchError(`the cluster is not up: ${lastLine(error)}; ${START_CLUSTER_HINT}`);
  }
  const ready = readyNodes(nodes.items ?? []);
  if (ready.length < 2) {
    const all = (nodes.items ?? []).map((node) => node.metadata?.name ?? "?");
    throw new BenchError(
      `a live migration needs two Ready nodes; Ready: ${ready.join(", ") || "none"} of ${all.join(", ") || "no nodes"}`,
    );
  }
  return ready;
}

async function get<T>(k: KubectlOptions, what: string, args: string[]): Promise<T> {
  try {
    return (await kubectlJson(k, args)) as T;
  } catch (error) {
    throw new BenchError(`reading ${what}: ${lastLine(error)}`);
  }
}

export const getVmi = (t: Target): Promise<VirtualMachineInstance> =>
  get(t, `VMI ${t.namespace}/${t.vm}`, [
    "-n",
    t.namespace,
    "get",
    "virtualmachineinstances.kubevirt.io",
    t.vm,
  ]);

export const getMigration = (t: Target, name: string): Promise<VirtualMachineInstanceMigration> =>
  get(t, `migration ${t.namespace}/${name}`, [
    "-n",
    t.namespace,
    "get",
    "virtualmachineinstancemigrations.kubevirt.io",
    name,
  ]);

/** Every migration of the VM's VMI, by the label virt-api's mutating webhook puts on them. */
export async function migrationsOf(t: Target): Promise<VirtualMachineInstanceMigration[]> {
  const list = await get<{ items?: VirtualMachineInstanceMigration[] }>(t, `migrations of ${t.vm}`, [
    "-n",
    t.namespace,
    "get",
    "virtualmachineinstancemigrations.kubevirt.io",
    "-l",
    `${MigrationSelectorLabel}=${t.vm}`,
  ]);
  return list.items ?? [];
}

export async function launcherPodsOf(t: Target, vmiUid: string): Promise<Pod[]> {
  const list = await get<{ items?: Pod[] }>(t, `virt-launcher pods of ${t.vm}`, [
    "-n",
    t.namespace,
    "get",
    "pods",
    "-l",
    `kubevirt.io=virt-launcher,kubevirt.io/created-by=${vmiUid}`,
  ]);
  return list.items ?? [];
}
