// Where the one-machine cluster keeps things: state under `.local/` in the checkout (git-ignored,
// removed by `down`), upstream binaries in the user's cache (kept across `down` and fresh clones).
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface Layout {
  repoRoot: string;
  stateDir: string;
  pkiDir: string;
  etcdDataDir: string;
  logsDir: string;
  pidsDir: string;
  configDir: string;
  nodesDir: string;
  /** Per node: local-path-provisioner's volumes and the files behind the loop devices. */
  storageDir: string;
  /** The loop devices `up` attached, so `down` detaches exactly those. */
  loopDevicesFile: string;
  adminKubeconfig: string;
  binDir: string;
  /**
   * What KubeVirt's component Pods run (the node agents' --component-images): the images `make images` builds
   * from the Dockerfiles (`built`, the default), or with `COMPONENT_IMAGES=checkout` this checkout's bundles on the
   * host's files (quicker to iterate on: no image build after a change).
   */
  componentImages: "built" | "checkout";
}

function componentImagesFrom(env: NodeJS.ProcessEnv): "built" | "checkout" {
  const value = env["COMPONENT_IMAGES"] || "built";
  if (value !== "built" && value !== "checkout") {
    throw new Error(`COMPONENT_IMAGES: must be "built" or "checkout", not "${value}"`);
  }
  return value;
}

const repoRootFromHere = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** The same cache folder deploy/local/go-env.sh builds into. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "kubevirt-ts");
}

export function layout(repoRoot = repoRootFromHere, env: NodeJS.ProcessEnv = process.env): Layout {
  const stateDir = join(repoRoot, ".local");
  return {
    repoRoot,
    stateDir,
    pkiDir: join(stateDir, "pki"),
    etcdDataDir: join(stateDir, "etcd"),
    logsDir: join(stateDir, "logs"),
    pidsDir: join(stateDir, "pids"),
    /** kubeconfigs of the components and other generated configuration */
    configDir: join(stateDir, "config"),
    nodesDir: join(stateDir, "nodes"),
    storageDir: join(stateDir, "storage"),
    loopDevicesFile: join(stateDir, "loop-devices.json"),
    adminKubeconfig: join(stateDir, "kubeconfig"),
    binDir: join(cacheDir(env), "bin"),
    componentImages: componentImagesFrom(env),
  };
}

export const binary = (l: Layout, name: string): string => join(l.binDir, name);
export const logFile = (l: Layout, process: string): string => join(l.logsDir, `${process}.log`);
export const pidFile = (l: Layout, process: string): string => join(l.pidsDir, `${process}.pid`);
/** Where a node's local storage lives on the host. */
export const nodeStorageDir = (l: Layout, node: string): string => join(l.storageDir, node);
export const componentKubeconfig = (l: Layout, user: string): string =>
  join(l.configDir, `${user}.kubeconfig`);
