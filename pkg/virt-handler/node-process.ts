// Which process stands for "the node" when virt-handler must act in the node's mount namespace. Upstream
// takes PID 1 (with hostPID it is the node's init). Where PID 1 cannot be entered — the local cluster runs
// its nodes as processes inside a sandbox whose init is not ours — the node is the nearest ancestor outside
// virt-handler's own mount namespace: the process that started the container (kubelet's runtime, or the
// local node agent), which lives in the node's mount namespace by construction.
import { readFile, readdir, readlink } from "node:fs/promises";
import path from "node:path";
import { parseStat } from "../util/proc-stat.js";

const NODE_INIT_PID = 1;

async function parentOf(procDir: string, pid: number): Promise<number | undefined> {
  const stat = await readFile(path.join(procDir, String(pid), "stat"), "utf8").catch(() => undefined);
  const parent = stat === undefined ? undefined : parseStatOrUndefined(stat)?.ppid;
  return parent !== undefined && parent > 0 ? parent : undefined;
}

function parseStatOrUndefined(text: string) {
  try {
    return parseStat(text);
  } catch {
    return undefined;
  }
}

const mountNamespaceOf = (procDir: string, pid: number | "self") =>
  readlink(path.join(procDir, String(pid), "ns/mnt")).catch(() => undefined);

export async function nodeProcessPid(procDir = "/proc", selfPid = process.pid): Promise<number> {
  const initReachable = await readdir(path.join(procDir, String(NODE_INIT_PID), "root"))
    .then(() => true)
    .catch(() => false);
  if (initReachable) return NODE_INIT_PID;
  const own = await mountNamespaceOf(procDir, selfPid);
  for (let pid = await parentOf(procDir, selfPid); pid !== undefined && pid > NODE_INIT_PID;) {
    const namespace = await mountNamespaceOf(procDir, pid);
    if (namespace !== undefined && namespace !== own) return pid;
    pid = await parentOf(procDir, pid);
  }
  throw new Error(
    "cannot find the node's mount namespace: PID 1 is not reachable and no ancestor is outside ours",
  );
}
