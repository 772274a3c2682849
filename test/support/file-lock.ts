// A lock shared by many readers or held by one writer, across processes: flock(1) on a file, held by a
// child process for as long as the holder wants it. flock rather than anything hand-made, since the kernel
// drops the lock of a holder that died.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export type LockShare = "shared" | "exclusive";

/** Takes the lock; resolves once it is held, with the release. */
export function holdFileLock(lockFile: string, share: LockShare): Promise<() => Promise<void>> {
  const holder: ChildProcessWithoutNullStreams = spawn("flock", [
    share === "exclusive" ? "--exclusive" : "--shared",
    lockFile,
    "sh",
    "-c",
    "echo held && exec cat >/dev/null",
  ]);
  const exited = new Promise<number>((resolve) => holder.once("close", (code) => resolve(code ?? 1)));
  return new Promise((resolve, reject) => {
    let output = "";
    holder.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    holder.stdout.on("data", (chunk: Buffer) => {
      if (!chunk.toString().includes("held")) return;
      resolve(async () => {
        holder.stdin.end(); // cat ends, flock exits and the lock is gone
        await exited;
      });
    });
    holder.once("error", reject);
    void exited.then((code) => reject(new Error(`flock ${share} ${lockFile} exited ${code}: ${output}`)));
  });
}
