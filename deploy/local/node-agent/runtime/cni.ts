import { spawn } from "node:child_process";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { Conflist } from "./cni-config.js";
import { CniPluginError, cniResultSchema, parseCniResult, pluginFailure } from "./cni-result.js";
import type { CniResult } from "./cni-result.js";
import { HOST_PATH } from "./exec.js";

// Runs a CNI network list the way a container runtime does through libcni: ADD runs the plugins in order,
// each given the previous one's result, and caches the final result with the exact configuration used;
// DEL runs them in reverse with that cached configuration and result, and drops the cache entry. Written
// here by hand (plugin exec, JSON on stdin/stdout, the cache file) because no maintained Node.js binding
// of libcni exists; it covers what the node agent needs, not the whole library (no CHECK, GC, STATUS,
// capability args or conf-dir scanning).

/** libcni's cache record kind; the record's fields match libcni's, so its tools can read the files. */
const CACHE_KIND = "cniCacheV1";

export interface CniRuntimeConf {
  /** The sandbox's ID, e.g. the pod UID: [A-Za-z0-9][A-Za-z0-9_.-]*. */
  containerID: string;
  /** The network namespace's path, e.g. /run/netns/kvts-0f3c9d2e7a1b. */
  netns: string;
  ifName: string;
  /** CNI_ARGS pairs, e.g. K8S_POD_NAMESPACE. */
  args: Array<[string, string]>;
}

export interface CachedNetwork {
  containerID: string;
  networkName: string;
  ifName: string;
  netns?: string;
  args: Array<[string, string]>;
  config: Conflist;
  result: CniResult;
}

const cacheSchema = z.looseObject({
  kind: z.literal(CACHE_KIND),
  containerId: z.string().min(1),
  config: z.string(),
  ifName: z.string().min(1),
  networkName: z.string().min(1),
  netns: z.string().optional(),
  cniArgs: z.array(z.tuple([z.string(), z.string()])).optional(),
  result: cniResultSchema,
});

const conflistSchema = z.looseObject({
  cniVersion: z.string(),
  name: z.string().min(1),
  plugins: z.array(z.looseObject({ type: z.string().min(1) })).min(1),
});

export interface CniOptions {
  /** CNI_PATH: the one directory the plugins are looked up in. */
  binDir: string;
  /** libcni's cache directory; results are kept under <cacheDir>/results. */
  cacheDir: string;
  /** Deadline of each plugin call (multus's includes its delegates'); the bridge plugin alone may wait
   * ~2.5 s for its port. Default 60 s. */
  timeoutMs?: number;
}

const VALID_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export class Cni {
  private readonly timeoutMs: number;

  constructor(private readonly options: CniOptions) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  async add(list: Conflist, rt: CniRuntimeConf): Promise<CniResult> {
    validateRuntimeConf(list, rt);
    let result: CniResult | undefined;
    for (const plugin of list.plugins) {
      try {
        result = parseCniResult(await this.exec("ADD", list, plugin, result, rt));
      } catch (error) {
        throw new CniPluginError(
          `plugin ${describe(plugin)} failed (add): ${(error as Error).message}`,
          (error as CniPluginError).code,
        );
      }
    }
    const final = result as CniResult;
    await this.writeCache(list, rt, final);
    return final;
  }

  /**
   * Removes what ADD set up, with the configuration and result ADD cached (`current` only when there is
   * no cache entry, e.g. an ADD that never finished). Idempotent, as the spec asks: the plugins tolerate
   * a namespace or reservation that is already gone.
   */
  async del(current: Conflist, rt: CniRuntimeConf): Promise<void> {
    const cached = await this.cached(current.name, rt.containerID, rt.ifName);
    const list = cached?.config ?? current;
    const conf = cached ? { ...rt, args: cached.args } : rt;
    validateRuntimeConf(list, conf);
    for (const plugin of [...list.plugins].reverse()) {
      try {
        await this.exec("DEL", list, plugin, cached?.result, conf);
      } catch (error) {
        throw new CniPluginError(
          `plugin ${describe(plugin)} failed (delete): ${(error as Error).message}`,
          (error as CniPluginError).code,
        );
      }
    }
    await rm(this.cacheFile(list.name, rt.containerID, rt.ifName), { force: true });
  }

  /** The cache entry ADD left for a sandbox, or undefined (also for an unreadable one). */
  async cached(networkName: string, containerID: string, ifName: string): Promise<CachedNetwork | undefined> {
    return readCacheFile(this.cacheFile(networkName, containerID, ifName));
  }

  /** Every readable cache entry, so a restarted runtime can find the sandboxes it set up. */
  async cachedNetworks(): Promise<CachedNetwork[]> {
    const dir = path.join(this.options.cacheDir, "results");
    const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    const entries = await Promise.all(names.map((name) => readCacheFile(path.join(dir, name))));
    return entries.filter((entry): entry is CachedNetwork => entry !== undefined);
  }

  private cacheFile(networkName: string, containerID: string, ifName: string): string {
    return path.join(this.options.cacheDir, "results", `${networkName}-${containerID}-${ifName}`);
  }

  private async writeCache(list: Conflist, rt: CniRuntimeConf, result: CniResult): Promise<void> {
    const file = this.cacheFile(list.name, rt.containerID, rt.ifName);
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const record = {
      kind: CACHE_KIND,
      containerId: rt.containerID,
      // as Go marshals libcni's []byte: base64 of the configuration's bytes
      config: Buffer.from(JSON.stringify(list)).toString("base64"),
      ifName: rt.ifName,
      networkName: list.name,
      netns: rt.netns,
      cniArgs: rt.args,
      result,
    };
    await writeFile(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  private async exec(
    command: "ADD" | "DEL",
    list: Conflist,
    plugin: Conflist["plugins"][number],
    prevResult: CniResult | undefined,
    rt: CniRuntimeConf,
  ): Promise<string> {
    const binary = path.join(this.options.binDir, plugin.type);
    if (!(await stat(binary).catch(() => undefined))?.isFile()) {
      throw new Error(
        `failed to find plugin "${plugin.type}" in path [${this.options.binDir}] ` +
          "(deploy/local/build-binaries.sh cni-plugins builds it)",
      );
    }
    // the spec: the list's name and version override the plugin's, and prevResult follows the first plugin
    const config = {
      ...plugin,
      name: list.name,
      cniVersion: list.cniVersion,
      ...(prevResult ? { prevResult } : {}),
    };
    const env = {
      PATH: HOST_PATH,
      CNI_COMMAND: command,
      CNI_CONTAINERID: rt.containerID,
      CNI_NETNS: rt.netns,
      CNI_ARGS: rt.args.map(([key, value]) => `${key}=${value}`).join(";"),
      CNI_IFNAME: rt.ifName,
      CNI_PATH: this.options.binDir,
    };
    return runPlugin(binary, env, JSON.stringify(config), this.timeoutMs);
  }
}

function validateRuntimeConf(list: Conflist, rt: CniRuntimeConf): void {
  if (!VALID_ID.test(rt.containerID)) throw new Error(`invalid container ID "${rt.containerID}"`);
  if (!VALID_ID.test(list.name)) throw new Error(`invalid network name "${list.name}"`);
  if (!/^[^/:\s]{1,15}$/.test(rt.ifName) || rt.ifName === "." || rt.ifName === "..") {
    throw new Error(`invalid interface name "${rt.ifName}"`);
  }
}

function describe(plugin: Conflist["plugins"][number]): string {
  return typeof plugin["name"] === "string"
    ? `type="${plugin.type}" name="${plugin["name"]}"`
    : `type="${plugin.type}"`;
}

async function readCacheFile(file: string): Promise<CachedNetwork | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = cacheSchema.parse(JSON.parse(text));
    const config = conflistSchema.parse(JSON.parse(Buffer.from(record.config, "base64").toString("utf8")));
    return {
      containerID: record.containerId,
      networkName: record.networkName,
      ifName: record.ifName,
      ...(record.netns !== undefined ? { netns: record.netns } : {}),
      args: record.cniArgs ?? [],
      config,
      result: record.result,
    };
  } catch {
    return undefined;
  }
}

/**
 * One plugin run: stdin in, stdout back; a non-zero exit becomes the plugin's own error. The plugin leads a
 * process group of its own, so a deadline kills what it started too (multus runs its delegates as children,
 * and a delegate that hangs would otherwise outlive the multus process the deadline killed).
 */
function runPlugin(
  binary: string,
  env: Record<string, string>,
  stdin: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(deadline);
      if (timedOut) {
        return reject(new CniPluginError(`no answer within ${timeoutMs / 1000}s: killed with its children`));
      }
      const out = Buffer.concat(stdout).toString("utf8");
      if (code === 0) return resolve(out);
      const exit = signal ? `signal: ${signal}` : `exit status ${code}`;
      reject(pluginFailure(out, Buffer.concat(stderr).toString("utf8"), exit));
    });
    // a plugin that exits before reading its stdin is reported by its exit, not by EPIPE
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}

/** SIGKILL to the group of the plugin we spawned, while it still runs (so the group's ID is still ours). */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // the group is empty already
  }
}
