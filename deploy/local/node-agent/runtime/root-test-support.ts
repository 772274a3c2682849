import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { z } from "zod";

// Helpers for the runtime tests that need root (network namespaces, mounts, nftables). They run as root in
// CI; elsewhere they are skipped with the reason printed.

/** Why the root-level tests cannot run here, or undefined when they can. */
export function rootTestsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "they need root";
  for (const tool of [
    "/usr/sbin/nft",
    "/usr/sbin/ip",
    "/usr/bin/nsenter",
    "/usr/bin/unshare",
    "/bin/busybox",
  ]) {
    if (!existsSync(tool))
      return `${tool} is missing (Debian packages: nftables, iproute2, util-linux, busybox-static)`;
  }
  return undefined;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The content of CRI log records in a file (timestamps and stream tags stripped). */
export async function logContent(logPath: string): Promise<string[]> {
  const text = await readFile(logPath, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ").slice(3).join(" "));
}

export async function waitForLog(logPath: string, pattern: RegExp, timeoutMs = 10_000): Promise<string[]> {
  return waitFor(
    `${pattern} in ${logPath}`,
    async () => {
      const lines = await logContent(logPath);
      return lines.some((line) => pattern.test(line)) ? lines : undefined;
    },
    timeoutMs,
  );
}

/** A plain HTTP/1.0 GET over TCP, returning the whole response. */
export function httpGet(host: string, port: number, path: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error("timeout")));
    socket.on("connect", () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString()));
    socket.on("error", reject);
  });
}

/** Whether a process has ended; an unreaped zombie counts as ended (its parent may simply be slow). */
export async function processGone(pid: number, timeoutMs = 2000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
    if (stat === undefined || stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function sh(command: string): string {
  return execFileSync("/bin/sh", ["-c", command], { encoding: "utf8" });
}

const counterListing = z.object({
  nftables: z.array(
    z.looseObject({ counter: z.looseObject({ name: z.string(), packets: z.number() }).optional() }),
  ),
});

/** Packets counted by every nftables counter with this name, in any table. */
export function nftCounterTotal(name: string): number {
  const listing = counterListing.parse(JSON.parse(sh("nft -j list counters")));
  return listing.nftables.reduce(
    (sum, entry) => sum + (entry.counter?.name === name ? entry.counter.packets : 0),
    0,
  );
}
