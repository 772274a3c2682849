import { mkdir, readFile, readdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { PodRef } from "../pod-runtime.js";
import type { NodeLayout } from "./node-layout.js";
import type { PreparedVolume } from "./volumes.js";

// Per-pod records in the runtime's state directory: who the pod is (so a restarted agent can name pods it
// set up) and where its prepared volumes are (so containers can still be started after a restart).

const podSchema = z.object({ uid: z.string(), namespace: z.string(), name: z.string() });
const volumesSchema = z.array(
  z.object({
    name: z.string(),
    source: z.string(),
    kind: z.enum(["directory", "file", "block", "other"]),
    readOnly: z.boolean().optional(),
  }),
);

async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(`${file}.tmp`, JSON.stringify(value, null, 2), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = schema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

export class PodRecords {
  constructor(private readonly layout: NodeLayout) {}

  private file(uid: string, name: string): string {
    return path.join(this.layout.runtimePodDir(uid), name);
  }

  async remember(pod: PodRef): Promise<void> {
    await writeJson(this.file(pod.uid, "pod.json"), {
      uid: pod.uid,
      namespace: pod.namespace,
      name: pod.name,
    });
  }

  async saveVolumes(uid: string, volumes: readonly PreparedVolume[]): Promise<void> {
    await writeJson(this.file(uid, "volumes.json"), volumes);
  }

  async volumes(uid: string): Promise<PreparedVolume[]> {
    return (await readJson(this.file(uid, "volumes.json"), volumesSchema)) ?? [];
  }

  /** Every pod with a record here. */
  async pods(): Promise<PodRef[]> {
    const dir = path.join(this.layout.runtimeDir, "pods");
    const pods: PodRef[] = [];
    for (const uid of await readdir(dir).catch(() => [])) {
      const pod = await readJson(this.file(uid, "pod.json"), podSchema);
      if (pod) pods.push(pod);
    }
    return pods;
  }
}
