// The options virt-handler sends with MigrateVirtualMachine (upstream cmdclient.MigrationOptions): part of
// the Cmd protocol between the two, so both sides read one definition.
import { z } from "zod";

/**
 * Upstream cmdclient.MigrationOptions as virt-handler sends it in MigrationRequest.options: Go's JSON
 * of the struct, so the keys are its field names and Bandwidth is a quantity's text.
 */
export const MigrationOptionsSchema = z.object({
  Bandwidth: z.string().default("0"),
  ProgressTimeout: z.number().int().default(0),
  CompletionTimeoutPerGiB: z.number().int().default(0),
  UnsafeMigration: z.boolean().default(false),
  AllowAutoConverge: z.boolean().default(false),
  AllowPostCopy: z.boolean().default(false),
  ParallelMigrationThreads: z.number().int().nonnegative().nullish(),
  AllowWorkloadDisruption: z.boolean().default(false),
});
export type MigrationOptions = z.infer<typeof MigrationOptionsSchema>;

/** The options of a MigrationRequest; an error names what is wrong with them. */
export function parseMigrationOptions(bytes: Buffer): MigrationOptions {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new Error(`failed to unmarshal migration options: ${(error as Error).message}`, { cause: error });
  }
  const parsed = MigrationOptionsSchema.safeParse(json);
  if (!parsed.success) throw new Error(`invalid migration options: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
