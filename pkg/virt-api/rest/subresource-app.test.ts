// The VM subresources over a recording client: which writes reach the apiserver, in which order, with the
// dry run passed on; the decisions themselves are lifecycle.test.ts's.
import { beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../api/generated/v1.js";
import { SubresourceApp, type LifecycleClient } from "./subresource-app.js";

const vm: VirtualMachine = { metadata: { name: "testvm" }, spec: { runStrategy: "Always", template: {} } };
const running: VirtualMachineInstance = {
  metadata: { name: "testvm", uid: "vmi-uid" },
  spec: { domain: { devices: {} } },
  status: { phase: "Running" },
};

let calls: string[];
let pods: string[];
let deleteFails: Error | undefined;
const client: LifecycleClient = {
  getVM: async () => vm,
  getVMI: async () => running,
  patchVM: async (_ns, _name, _patch, dryRun) => void calls.push(`patchVM dryRun=${dryRun}`),
  patchVMStatus: async (_ns, _name, _patch, dryRun) => void calls.push(`patchVMStatus dryRun=${dryRun}`),
  patchVMI: async (_ns, _name, _patch, dryRun) => void calls.push(`patchVMI dryRun=${dryRun}`),
  listPodNames: async (namespace, labels, fields) => {
    calls.push(`list ${namespace} ${labels} ${fields}`);
    return pods;
  },
  deletePod: async (namespace, name, grace, dryRun) => {
    if (deleteFails) throw deleteFails;
    calls.push(`delete ${namespace}/${name} grace=${grace} dryRun=${dryRun}`);
  },
};
const app = new SubresourceApp(client);

beforeEach(() => {
  calls = [];
  pods = ["virt-launcher-testvm-abcde"];
  deleteFails = undefined;
});

describe("restart with gracePeriodSeconds 0", () => {
  it("asks for the restart, then deletes the running launcher pod with a one-second grace period", async () => {
    expect(await app.handle("restart", "ns", "testvm", { gracePeriodSeconds: 0 })).toEqual({ code: 202 });
    expect(calls).toEqual([
      "patchVMStatus dryRun=false",
      "list ns kubevirt.io=virt-launcher,kubevirt.io/created-by=vmi-uid status.phase==Running",
      "delete ns/virt-launcher-testvm-abcde grace=1 dryRun=false",
    ]);
  });

  it("passes a dry run on to the deletion too", async () => {
    await app.handle("restart", "ns", "testvm", { gracePeriodSeconds: 0, dryRun: ["All"] });
    expect(calls.at(-1)).toBe("delete ns/virt-launcher-testvm-abcde grace=1 dryRun=true");
  });

  it("is done when no launcher pod runs, and an InternalError when the deletion fails", async () => {
    pods = [];
    expect(await app.handle("restart", "ns", "testvm", { gracePeriodSeconds: 0 })).toEqual({ code: 202 });
    expect(calls.some((call) => call.startsWith("delete"))).toBe(false);
    pods = ["virt-launcher-testvm-abcde"];
    deleteFails = new Error("etcdserver: request timed out");
    const answer = await app.handle("restart", "ns", "testvm", { gracePeriodSeconds: 0 });
    expect([answer.code, answer.body?.message]).toEqual([
      500,
      "Internal error occurred: etcdserver: request timed out",
    ]);
  });

  it("a plain restart deletes nothing", async () => {
    expect(await app.handle("restart", "ns", "testvm", {})).toEqual({ code: 202 });
    expect(calls).toEqual(["patchVMStatus dryRun=false"]);
  });
});

describe("stop", () => {
  it("refuses a negative grace period before reading the VM", async () => {
    const answer = await app.handle("stop", "ns", "testvm", { gracePeriod: -5 });
    expect([answer.code, answer.body?.message]).toEqual([400, "gracePeriod has to be greater or equal to 0"]);
    expect(calls).toEqual([]);
  });

  it("shortens the VMI's grace period, then turns the VM off, both as a dry run when asked", async () => {
    expect(await app.handle("stop", "ns", "testvm", { gracePeriod: 0, dryRun: ["All"] })).toEqual({
      code: 202,
    });
    expect(calls).toEqual(["patchVMI dryRun=true", "patchVM dryRun=true"]);
  });
});

describe("start", () => {
  it("of a Halted VM, paused, asks virt-controller through a start request with the paused flag", async () => {
    const halted = { ...vm, spec: { runStrategy: "Halted", template: {} } };
    let patch: unknown;
    const app = new SubresourceApp({
      ...client,
      getVM: async () => halted,
      getVMI: async () => undefined,
      patchVMStatus: async (_ns, _name, body) => void (patch = body),
    });
    expect(await app.handle("start", "ns", "testvm", { paused: true })).toEqual({ code: 202 });
    expect(patch).toEqual([
      {
        op: "add",
        path: "/status",
        value: { stateChangeRequests: [{ action: "Start", data: { paused: "true" } }] },
      },
    ]);
  });
});
