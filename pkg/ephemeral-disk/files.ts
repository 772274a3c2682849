import { stat } from "node:fs/promises";

/** Whether `path` exists; errors other than "no such file" are raised (upstream diskutils.FileExists). */
export async function fileExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}
