import { writeFile } from "node:fs/promises";
import { z } from "zod";
import { CommandError, succeeds } from "./exec.js";
import type { RunCommand } from "./exec.js";

// Thin, idempotent wrappers around iproute2 for the few link/route/netns operations the runtime needs.

const IP = "ip";

const addressListSchema = z.array(
  z.looseObject({
    ifname: z.string(),
    addr_info: z
      .array(z.looseObject({ family: z.string(), local: z.string(), prefixlen: z.number() }))
      .default([]),
  }),
);

export class IpTool {
  constructor(private readonly run: RunCommand) {}

  linkExists(name: string, netns?: string): Promise<boolean> {
    return succeeds(this.run, IP, [...nsArgs(netns), "link", "show", "dev", name]);
  }

  async ensureBridge(name: string): Promise<void> {
    if (!(await this.linkExists(name))) {
      await this.tolerate(this.run(IP, ["link", "add", name, "type", "bridge"]), "File exists");
    }
    await this.run(IP, ["link", "set", name, "up"]);
  }

  /** Deletes a link if present (deleting one end of a veth pair deletes the other). */
  async deleteLink(name: string): Promise<void> {
    await this.tolerate(this.run(IP, ["link", "del", name]), "Cannot find device");
  }

  /** The IPv4 addresses (`a.b.c.d/len`) on a link. */
  async addresses(name: string, netns?: string): Promise<string[]> {
    const out = await this.run(IP, [...nsArgs(netns), "-j", "-4", "addr", "show", "dev", name]);
    return addressListSchema
      .parse(JSON.parse(out))
      .flatMap((link) =>
        link.addr_info.filter((a) => a.family === "inet").map((a) => `${a.local}/${a.prefixlen}`),
      );
  }

  async ensureAddress(name: string, cidrAddress: string, netns?: string): Promise<void> {
    if ((await this.addresses(name, netns)).includes(cidrAddress)) return;
    await this.tolerate(
      this.run(IP, [...nsArgs(netns), "addr", "add", cidrAddress, "dev", name]),
      "File exists",
    );
  }

  /** Per-interface IPv4 forwarding: routes between the cluster's bridges without making every
   * interface of the machine (its uplink included) a router, and vanishes with the bridge. */
  async enableForwarding(name: string): Promise<void> {
    await writeFile(`/proc/sys/net/ipv4/conf/${name}/forwarding`, "1\n");
  }

  async replaceRoute(args: string[]): Promise<void> {
    await this.run(IP, ["route", "replace", ...args]);
  }

  async deleteRoute(args: string[]): Promise<void> {
    await this.tolerate(this.run(IP, ["route", "del", ...args]), "No such process");
  }

  netnsExists(name: string): Promise<boolean> {
    return succeeds(this.run, IP, ["netns", "exec", name, "true"]);
  }

  async addNetns(name: string): Promise<void> {
    await this.tolerate(this.run(IP, ["netns", "add", name]), "File exists");
  }

  async deleteNetns(name: string): Promise<void> {
    await this.tolerate(this.run(IP, ["netns", "del", name]), "No such file");
  }

  /** Runs `ip` inside a namespace. */
  async inNetns(netns: string, args: string[]): Promise<void> {
    await this.run(IP, ["-n", netns, ...args]);
  }

  async command(args: string[]): Promise<string> {
    return this.run(IP, args);
  }

  private async tolerate(operation: Promise<unknown>, benignMessage: string): Promise<void> {
    try {
      await operation;
    } catch (error) {
      if (error instanceof CommandError && error.stderr.includes(benignMessage)) return;
      throw error;
    }
  }
}

function nsArgs(netns: string | undefined): string[] {
  return netns ? ["-n", netns] : [];
}
