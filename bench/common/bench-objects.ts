import { BenchError } from "./bench-error.js";
import {
  START_CLUSTER_HINT,
  kubectlText,
  lastLine,
  missingClusterFile,
  type KubectlCall,
  type KubectlOptions,
} from "./kubectl.js";

// The objects a benchmark makes in the cluster, through kubectl as a user makes them: is it there, create or
// apply it, delete it and wait until it is gone. A label names the benchmark that made each object, so that
// no benchmark takes over, nor deletes, an object of the same name it did not make.

export const OWNER_LABEL = "kubevirt-ts.io/benchmark";

/**
 * kubectl's stdout; on failure a BenchError saying what was being done and kubectl's last word, with
 * kubectl's error as its cause (lastLine of it is still kubectl's last stderr line).
 */
export async function kubectlStep(
  k: KubectlOptions,
  doing: string,
  args: string[],
  call: KubectlCall = {},
): Promise<string> {
  try {
    return await kubectlText(k, args, call);
  } catch (error) {
    throw new BenchError(`${doing}: ${lastLine(error)}`, { cause: error });
  }
}

/** One object, named. */
export interface BenchObject {
  /** kubectl's name of the resource: "namespace", "virtualmachines.kubevirt.io". */
  resource: string;
  name: string;
  /** Undefined for a cluster-scoped object. */
  namespace?: string;
  /** How messages name it: "namespace bench-vm-boot", "VM default/bench-migration". */
  what: string;
}

/** Every object of a resource that carries a label. */
export interface BenchObjects {
  resource: string;
  selector: string;
  namespace?: string;
  what: string;
}

const scope = (o: { namespace?: string }): string[] => (o.namespace === undefined ? [] : ["-n", o.namespace]);

export function namespaceObject(name: string): BenchObject {
  return { resource: "namespace", name, what: `namespace ${name}` };
}

export function vmObject(namespace: string, name: string): BenchObject {
  return {
    resource: "virtualmachines.kubevirt.io",
    namespace,
    name,
    what: `VM ${namespace}/${name}`,
  };
}

/** The object's labels ({} when it has none), undefined when it does not exist; `hint` ends a failure. */
export async function readLabels(
  k: KubectlOptions,
  o: BenchObject,
  hint = "",
): Promise<Record<string, string> | undefined> {
  let json: string;
  try {
    // Empty when there is no such object.
    json = await kubectlText(k, [...scope(o), "get", o.resource, o.name, "--ignore-not-found", "-o", "json"]);
  } catch (error) {
    throw new BenchError(`reading ${o.what}: ${lastLine(error)}${hint}`, { cause: error });
  }
  if (json.trim() === "") return undefined;
  return (JSON.parse(json) as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
}

export interface Ownership {
  /** The benchmark, as the owner label's value: "vm-boot". */
  owner: string;
  /** The option that names another object, for the refusal: "--vm". */
  option: string;
}

/** Whether the object is there already; refuses one the benchmark did not make. */
export async function existsAsOwned(
  k: KubectlOptions,
  o: BenchObject,
  ownership: Ownership,
  hint = "",
): Promise<boolean> {
  const labels = await readLabels(k, o, hint);
  if (labels === undefined) return false;
  if (labels[OWNER_LABEL] !== ownership.owner)
    throw new BenchError(
      `${o.what} exists and is not the benchmark's: name another with ${ownership.option}`,
    );
  return true;
}

/** `manifest` with the owner label of `owner` (its other labels dropped), in `namespace` if given. */
export function ownedManifest<T extends { metadata?: object }>(
  manifest: T,
  owner: string,
  namespace?: string,
): T {
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      ...(namespace === undefined ? {} : { namespace }),
      labels: { [OWNER_LABEL]: owner },
    },
  };
}

/**
 * Creates the benchmark's namespace unless it is there already; answers whether it created it. Refuses a
 * namespace the benchmark did not make, and says how to start the cluster when its files are missing.
 */
export async function ensureNamespace(k: KubectlOptions, name: string, owner: string): Promise<boolean> {
  const missing = await missingClusterFile(k);
  if (missing) throw new BenchError(`the cluster is not up: ${missing}; ${START_CLUSTER_HINT}`);
  const namespace = namespaceObject(name);
  if (await existsAsOwned(k, namespace, { owner, option: "--namespace" })) return false;
  const manifest = ownedManifest({ apiVersion: "v1", kind: "Namespace", metadata: { name } }, owner);
  await kubectlStep(k, `creating ${namespace.what}`, ["create", "-f", "-"], {
    input: JSON.stringify(manifest),
  });
  return true;
}

/** `kubectl delete` of the object(s), waiting up to `timeoutMs` until they are gone (finalizers done). */
export async function deleteAndWait(
  k: KubectlOptions,
  o: BenchObject | BenchObjects,
  timeoutMs: number,
): Promise<void> {
  const which = "selector" in o ? ["-l", o.selector] : [o.name];
  await kubectlStep(
    k,
    `deleting ${o.what}`,
    [
      ...scope(o),
      "delete",
      o.resource,
      ...which,
      "--ignore-not-found",
      "--wait=true",
      `--timeout=${Math.round(timeoutMs / 1000)}s`,
    ],
    // kubectl's own --timeout bounds the wait.
    { requestTimeout: "0" },
  );
}
