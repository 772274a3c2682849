// What `down` must leave behind: nothing. Lists whatever of the cluster is still on the host, so
// `down` (and the integration tests' teardown) can fail loudly instead of leaking.
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { LOCAL_CLUSTER_NETWORK } from "../node-agent/runtime/cluster-network-config.js";
import { processTree } from "./cgroup.js";
import { linkExists } from "./host-network.js";
import { knownProcesses } from "./inventory.js";
import type { Layout } from "./layout.js";
import { loopDevicesUnder } from "./loop-devices.js";
import { mountsUnder } from "./mounts.js";
import { netnsNames } from "./node-cleanup.js";
import { runCommand } from "./run-command.js";
import { secondaryLeases } from "./secondary-networks.js";
import { runningPid } from "./supervisor.js";
import { topology } from "./topology.js";

export async function leftovers(l: Layout): Promise<string[]> {
  const found: string[] = [];
  for (const name of knownProcesses(l)) {
    const pid = await runningPid(l, name);
    if (pid !== undefined) found.push(`process ${name} (pid ${pid})`);
  }
  const tree = await processTree(l.stateDir, "probe");
  if (tree && existsSync(dirname(tree.dir))) found.push(`cgroup ${dirname(tree.dir)}`);

  const prefix = LOCAL_CLUSTER_NETWORK.interfacePrefix;
  const links = (await runCommand("ip", ["-o", "link", "show"])).stdout
    .split("\n")
    .map((line) => line.split(": ")[1]?.split("@")[0] ?? "")
    .filter((name) => name.startsWith(prefix));
  found.push(...links.map((name) => `link ${name}`));
  if (await linkExists(topology.controlPlaneLink)) found.push(`link ${topology.controlPlaneLink}`);
  found.push(
    ...(await netnsNames()).filter((name) => name.startsWith(prefix)).map((name) => `netns ${name}`),
  );

  const tables = (await runCommand("nft", ["list", "tables"])).stdout.split("\n");
  for (const table of [`inet ${LOCAL_CLUSTER_NETWORK.tableName}`, "ip kube-proxy", "ip6 kube-proxy"]) {
    if (tables.includes(`table ${table}`)) found.push(`nftables table ${table}`);
  }
  found.push(...(await mountsUnder(l.stateDir)).map((point) => `mount ${point}`));
  found.push(...(await loopDevicesUnder(l.stateDir)).map((device) => `loop device ${device}`));
  // the secondary bridges (kvts-sec*) are links with the prefix above; their NADs' reservations live here
  found.push(...(await secondaryLeases()).map((file) => `host-local reservation ${file}`));
  for (const dir of [l.pkiDir, l.etcdDataDir, l.logsDir, l.pidsDir, l.configDir, l.nodesDir, l.storageDir]) {
    if (existsSync(dir)) found.push(`folder ${dir}`);
  }
  if (existsSync(l.loopDevicesFile)) found.push(`file ${l.loopDevicesFile}`);
  return found;
}
