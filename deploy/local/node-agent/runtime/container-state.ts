import { readFile, readdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

// What the runtime records about each container instance in the node's state directory, so a restarted
// agent can find the processes it started (by PID and start time, never by name), adopt them, and report
// how the ones that ended while it was away finished.

const exitSchema = z.object({
  exitCode: z.number().int(),
  signal: z.string().optional(),
  finishedAt: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const containerStateSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  pod: z.object({ uid: z.string(), namespace: z.string(), name: z.string() }),
  name: z.string(),
  attempt: z.number().int().nonnegative(),
  /** The supervising shell: the process group leader, parent of the container's process. */
  supervisor: z.object({ pid: z.number().int(), startTicks: z.number().int() }),
  /** The container's own process (the command from the pod spec). */
  pid: z.number().int(),
  startedAt: z.string(),
  logPath: z.string(),
  /** Where the supervisor writes the exit status when the command ends. */
  statusFile: z.string(),
  cgroup: z.string().optional(),
  exit: exitSchema.optional(),
});

export type ContainerState = z.infer<typeof containerStateSchema>;
export type RecordedExit = z.infer<typeof exitSchema>;

export const STATE_FILE = "state.json";

export async function writeContainerState(dir: string, state: ContainerState): Promise<void> {
  const target = path.join(dir, STATE_FILE);
  await writeFile(`${target}.tmp`, JSON.stringify(state, null, 2), { mode: 0o600 });
  await rename(`${target}.tmp`, target);
}

export async function readContainerState(dir: string): Promise<ContainerState | undefined> {
  const text = await readFile(path.join(dir, STATE_FILE), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = containerStateSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

/** Every recorded container under `<runtimeDir>/pods/<uid>/containers/<name>`. */
export async function listContainerStates(podsDir: string): Promise<ContainerState[]> {
  const states: ContainerState[] = [];
  for (const uid of await readdir(podsDir).catch(() => [])) {
    const containersDir = path.join(podsDir, uid, "containers");
    for (const name of await readdir(containersDir).catch(() => [])) {
      const state = await readContainerState(path.join(containersDir, name)).catch(() => undefined);
      if (state) states.push(state);
    }
  }
  return states;
}
