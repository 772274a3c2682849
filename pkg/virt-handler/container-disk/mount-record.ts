// What virt-handler mounted for a VMI's containerDisks or hotplug volumes (upstream's vmiMountTargetRecord checkpoint), kept
// in the handler's private dir and written before mounting, so a restarted handler neither mounts twice
// nor forgets a mount it must undo.
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { posix } from "node:path";
import { z } from "zod";

const recordSchema = z.object({
  mountTargetEntries: z.array(z.object({ targetFile: z.string(), socketFile: z.string().optional() })),
});

export type MountRecord = z.infer<typeof recordSchema>;

export class MountRecords {
  constructor(private readonly dir: string) {}

  private file(vmiUID: string): string {
    if (!/^[0-9a-f-]+$/i.test(vmiUID)) throw new Error(`invalid VMI UID ${JSON.stringify(vmiUID)}`);
    return posix.join(this.dir, vmiUID);
  }

  async get(vmiUID: string): Promise<MountRecord | undefined> {
    const text = await readFile(this.file(vmiUID), "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    return text === undefined ? undefined : recordSchema.parse(JSON.parse(text));
  }

  async set(vmiUID: string, record: MountRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(vmiUID);
    await writeFile(`${file}.tmp`, JSON.stringify(record), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  async delete(vmiUID: string): Promise<void> {
    await rm(this.file(vmiUID), { force: true });
  }
}
