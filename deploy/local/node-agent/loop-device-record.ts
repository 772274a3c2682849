// The loop devices `make up` attached (deploy/local/cluster/loop-devices.ts), as recorded in
// `.local/loop-devices.json`: written by the cluster's bring-up, read by it again and by each node agent's
// local-block recycler, which wipes only devices this record names.
import { readFile } from "node:fs/promises";
import { z } from "zod";

export const loopDeviceRecordSchema = z.object({
  node: z.string(),
  index: z.number().int().nonnegative(),
  /** The backing file's real path, as losetup reports it. */
  file: z.string(),
  device: z.string(),
  sizeBytes: z.number(),
});
export type LoopDeviceRecord = z.infer<typeof loopDeviceRecordSchema>;

/** The records in `file`; none when it does not exist (no `up` has attached a device yet). */
export async function readLoopDeviceRecords(file: string): Promise<LoopDeviceRecord[]> {
  const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return "[]";
    throw err;
  });
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error(`${file}: expected a list of loop devices`);
  const parsed = z.array(loopDeviceRecordSchema).safeParse(value);
  if (!parsed.success) throw new Error(`${file}: not a list of loop devices: ${parsed.error.message}`);
  return parsed.data;
}
