import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeHost } from "../common/testing/fake-proc.js";
import type { ComponentPod } from "./pods.js";
import { sampleRound, sampleRounds } from "./sampler.js";
import { Tracker } from "./tracker.js";

let host: FakeHost;

beforeEach(async () => {
  host = await FakeHost.create("bench-components");
});

afterEach(async () => {
  await host.remove();
});

const api: ComponentPod = {
  component: "virt-api",
  name: "virt-api-1",
  uid: "uid-api",
  node: "node01",
  leader: false,
};
const gone: ComponentPod = {
  component: "virt-handler",
  name: "virt-handler-x",
  uid: "uid-x",
  node: "node02",
  leader: false,
};

async function fakeApiPod(): Promise<void> {
  await host.process({ pid: 50, ppid: 1, comm: "sh", argv: ["/bin/sh", "-c", "..."], rssKiB: 1700 });
  await host.process({
    pid: 51,
    ppid: 50,
    comm: "node",
    argv: ["/usr/bin/node", "/w/dist/components/bin/virt-api.mjs"],
    rssKiB: 90_000,
    pssKiB: 50_000,
    utimeTicks: 120,
  });
  await host.container("node01", api.uid, "virt-api", 50, { namespace: "kubevirt", pod: api.name });
  await host.cgroup("node01", api.uid, "", []);
  await host.cgroup("node01", api.uid, "virt-api-0", [50, 51]);
}

describe("sampling rounds", () => {
  it("reads each pod's processes but the agent's supervising shell, and says which pods it cannot read", async () => {
    await fakeApiPod();
    const warnings = new Set<string>();
    const target = { pods: [api, gone], nodesDir: host.nodesDir, procRoot: host.procRoot };
    const observations = await sampleRound(target, { pss: true, warnings });
    expect(observations.map((o) => [o.pod.name, o.sample.pid, o.sample.rssKiB, o.sample.pssKiB])).toEqual([
      ["virt-api-1", 51, 90_000, 50_000],
    ]);
    expect([...warnings]).toEqual([expect.stringMatching(/^pod virt-handler-x: no node agent records/)]);
    const withoutPss = await sampleRound(target, { pss: false, warnings });
    expect(withoutPss[0]?.sample.pssKiB).toBeUndefined();
  });

  it("samples until the window ends, or until a command ends", async () => {
    await fakeApiPod();
    const target = { pods: [api], nodesDir: host.nodesDir, procRoot: host.procRoot };
    const windowed = new Tracker();
    await sampleRounds(windowed, target, { pss: false, warnings: new Set(), intervalMs: 10, durationMs: 30 });
    expect(windowed.roundCount).toBeGreaterThanOrEqual(2);
    expect(windowed.elapsedMs).toBeGreaterThanOrEqual(30);
    const until = new Tracker();
    const command = new Promise((resolve) => setTimeout(resolve, 25));
    await sampleRounds(until, target, { pss: false, warnings: new Set(), intervalMs: 1000, until: command });
    // One round at the start, one when the command ended, none at the interval.
    expect(until.roundCount).toBe(2);
  });
});
