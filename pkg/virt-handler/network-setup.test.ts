import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../api/generated/v1.js";
import type { IsolationResult } from "./isolation/detector.js";
import { PodNetworkSetup } from "./network-setup.js";

const launcher: IsolationResult = { pid: 42, netnsPath: "/proc/42/ns/net", rootFs: "/proc/42/root" };

function vmi(interfaces: NonNullable<VirtualMachineInstance["spec"]["domain"]["devices"]["interfaces"]>) {
  return { metadata: { name: "testvmi", uid: "u1" }, spec: { domain: { devices: { interfaces } } } };
}

function recording(detect: () => Promise<IsolationResult>) {
  const calls: string[] = [];
  const setup = new PodNetworkSetup(
    { detect: async () => (calls.push("detect"), detect()) },
    {
      setup: async (_vmi, found) => void calls.push(`setup ${found.netnsPath} ${found.rootFs}`),
      teardown: async () => void calls.push("teardown"),
    },
  );
  return { calls, setup };
}

describe("PodNetworkSetup", () => {
  it("sets up the network in the namespaces the detector found", async () => {
    const { calls, setup } = recording(async () => launcher);
    await setup.setup(vmi([{ name: "default", masquerade: {} }]));
    expect(calls).toEqual(["detect", "setup /proc/42/ns/net /proc/42/root"]);
  });

  it("does not look for the pod of a VMI without interfaces to set up", async () => {
    const { calls, setup } = recording(async () => launcher);
    await setup.setup(vmi([]));
    await setup.setup(vmi([{ name: "default", masquerade: {}, state: "absent" }]));
    expect(calls).toEqual([]);
  });

  it("words a failed detection as upstream does", async () => {
    const { setup } = recording(async () => Promise.reject(new Error("no process of the pod was found")));
    await expect(setup.setup(vmi([{ name: "default", bridge: {} }]))).rejects.toThrow(
      "failed to detect isolation for launcher pod: no process of the pod was found",
    );
  });
});
