// Helpers of the mounters' root tests: how often a path is mounted in this test's namespace, and waiting
// for a disk container to come up.
import { readMountInfoOf } from "../isolation/mount-info.js";

export const mountsAt = async (point: string): Promise<number> =>
  (await readMountInfoOf("/proc", "self")).filter((entry) => entry.mountPoint === point).length;

/** Polls `probe` every 50 ms for up to 10 s until it yields a value (a rejection counts as none yet). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
