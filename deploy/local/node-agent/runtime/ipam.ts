import { mkdir, readFile, readdir, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { formatIpv4, gatewayOf, hostRange, parseCidr, parseIpv4 } from "./ipv4.js";
import type { Ipv4Cidr } from "./ipv4.js";

// Pod IP allocation from the node's block, persisted as one file per address holding the pod UID (the
// layout of CNI's host-local plugin). Exclusive file creation makes concurrent allocations safe, and a
// restarted agent finds each pod's address again by reading the files.

const LAST_RESERVED = "last_reserved_ip";

export class IpamExhaustedError extends Error {
  override readonly name = "IpamExhaustedError";
}

/** Candidate addresses in allocation order: round-robin after the last one handed out, skipping the gateway. */
export function candidateAddresses(cidr: Ipv4Cidr, lastReserved: number | undefined): number[] {
  const { first, last } = hostRange(cidr);
  const gateway = gatewayOf(cidr);
  const start =
    lastReserved !== undefined && lastReserved >= first && lastReserved < last ? lastReserved + 1 : first;
  const order: number[] = [];
  for (let address = start; address <= last; address++) order.push(address);
  for (let address = first; address < start; address++) order.push(address);
  return order.filter((address) => address !== gateway);
}

export class IpAllocator {
  private readonly cidr: Ipv4Cidr;

  constructor(
    podCidr: string,
    private readonly dir: string,
  ) {
    this.cidr = parseCidr(podCidr);
  }

  /** The address recorded for this pod, allocating one if it has none. */
  async allocate(podUID: string): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const existing = await this.find(podUID);
    if (existing) return existing;
    for (const candidate of candidateAddresses(this.cidr, await this.lastReserved())) {
      const address = formatIpv4(candidate);
      try {
        await writeFile(path.join(this.dir, address), podUID, { flag: "wx" });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw error;
      }
      await writeFile(path.join(this.dir, LAST_RESERVED), address);
      return address;
    }
    throw new IpamExhaustedError(
      `no free address left in ${formatIpv4(this.cidr.network)}/${this.cidr.prefixLength}`,
    );
  }

  /** The address recorded for a pod, if any. */
  async find(podUID: string): Promise<string | undefined> {
    for (const [address, owner] of await this.allocations()) if (owner === podUID) return address;
    return undefined;
  }

  async release(podUID: string): Promise<void> {
    for (const [address, owner] of await this.allocations()) {
      if (owner === podUID) await unlink(path.join(this.dir, address)).catch(ignoreMissing);
    }
  }

  /** Every recorded address with its owning pod UID. */
  async allocations(): Promise<Map<string, string>> {
    const result = new Map<string, string>();
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return result;
      throw error;
    }
    for (const name of names) {
      if (!isAddress(name)) continue;
      const owner = await readFile(path.join(this.dir, name), "utf8").catch(() => undefined);
      if (owner !== undefined) result.set(name, owner.trim());
    }
    return result;
  }

  private async lastReserved(): Promise<number | undefined> {
    const text = await readFile(path.join(this.dir, LAST_RESERVED), "utf8").catch(() => undefined);
    return text !== undefined && isAddress(text.trim()) ? parseIpv4(text.trim()) : undefined;
  }
}

function isAddress(name: string): boolean {
  try {
    parseIpv4(name);
    return true;
  } catch {
    return false;
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== "ENOENT") throw error;
}
