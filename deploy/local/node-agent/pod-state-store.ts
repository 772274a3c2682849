import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { ContainerRecord } from "./container-record.js";
import type { DeviceAllocation } from "./device-manager.js";

// What the agent must remember about each pod across its own restarts (restart counts, exits, device
// allocations, start time), one JSON file per pod UID under <state-dir>/pods. Written atomically.

const termination = z.object({
  attempt: z.number(),
  exitCode: z.number(),
  signal: z.string().optional(),
  reason: z.string(),
  message: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  containerID: z.string(),
});

const containerRecord = z.object({
  name: z.string(),
  image: z.string(),
  imageID: z.string().optional(),
  restartCount: z.number(),
  everStarted: z.boolean(),
  running: z.object({ containerID: z.string(), startedAt: z.string(), attempt: z.number() }).optional(),
  lastExit: termination.optional(),
  previousExit: termination.optional(),
  waiting: z.object({ reason: z.string(), message: z.string().optional() }).optional(),
});

const allocation = z.object({
  resource: z.string(),
  deviceIDs: z.array(z.string()),
  response: z.object({
    envs: z.record(z.string(), z.string()),
    mounts: z.array(z.object({ container_path: z.string(), host_path: z.string(), read_only: z.boolean() })),
    devices: z.array(
      z.object({ container_path: z.string(), host_path: z.string(), permissions: z.string() }),
    ),
    annotations: z.record(z.string(), z.string()),
  }),
});

const podState = z.object({
  uid: z.string(),
  namespace: z.string(),
  name: z.string(),
  startTime: z.string().optional(),
  podIPs: z.array(z.string()).default([]),
  containers: z.array(containerRecord),
  allocations: z.record(z.string(), z.array(allocation)).default({}),
});

export type PodState = z.infer<typeof podState>;

// Compile-time checks that the schemas describe the in-memory types.
type Assert<T extends true> = T;
export type _RecordsMatch = Assert<ContainerRecord extends z.infer<typeof containerRecord> ? true : false>;
export type _AllocationsMatch = Assert<DeviceAllocation extends z.infer<typeof allocation> ? true : false>;

export class PodStateStore {
  constructor(private readonly dir: string) {}

  private file(uid: string): string {
    return path.join(this.dir, `${uid}.json`);
  }

  async save(state: PodState): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const target = this.file(state.uid);
    const temp = `${target}.tmp`;
    await writeFile(temp, JSON.stringify(state));
    await rename(temp, target);
  }

  async remove(uid: string): Promise<void> {
    await rm(this.file(uid), { force: true });
  }

  /** Every stored pod state; unreadable files are reported and skipped. */
  async loadAll(onBadFile: (file: string, err: unknown) => void = () => {}): Promise<PodState[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const states: PodState[] = [];
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      try {
        states.push(podState.parse(JSON.parse(await readFile(path.join(this.dir, name), "utf8"))));
      } catch (err) {
        onBadFile(name, err);
      }
    }
    return states;
  }
}
