import { describe, expect, it } from "vitest";
import { Path } from "../../api/field.js";
import type { ObjectMeta } from "../../api/generated/k8s.js";
import type { VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../api/generated/v1beta1.js";
import { Conflicts } from "../conflict/conflicts.js";
import { guestCPUTopology, overcommittedRequest, vmiApplier } from "./vmi.js";

const field = Path.of("spec", "template", "spec");
const instancetype = (
  extra: Partial<VirtualMachineInstancetypeSpec> = {},
): VirtualMachineInstancetypeSpec => ({
  cpu: { guest: 2 },
  memory: { guest: "1Gi" },
  ...extra,
});
const apply = (
  it: VirtualMachineInstancetypeSpec | undefined,
  pref: VirtualMachinePreferenceSpec | undefined,
  spec: VirtualMachineInstanceSpec = { domain: { devices: {} } },
  metadata: ObjectMeta = {},
) => ({ conflicts: vmiApplier.applyToVMI(field, it, pref, spec, metadata), spec, metadata });

describe("instancetype VMI applier", () => {
  it("writes the guest CPU as sockets by default and the guest memory", () => {
    const { conflicts, spec } = apply(
      instancetype({ cpu: { guest: 4, model: "host-passthrough" } }),
      undefined,
    );
    expect(conflicts).toEqual([]);
    expect(spec.domain.cpu).toEqual({ sockets: 4, cores: 1, threads: 1, model: "host-passthrough" });
    expect(spec.domain.memory).toEqual({ guest: "1Gi" });
  });

  it("follows the preferred topology, spread options included", () => {
    const topology = (vCPUs: number, cpu: VirtualMachinePreferenceSpec["cpu"], ratio?: number) =>
      guestCPUTopology(vCPUs, { cpu, ...(ratio ? { preferSpreadSocketToCoreRatio: ratio } : {}) });
    expect(topology(4, { preferredCPUTopology: "cores" })).toEqual({ sockets: 1, cores: 4, threads: 1 });
    expect(topology(4, { preferredCPUTopology: "preferThreads" })).toEqual({
      sockets: 1,
      cores: 1,
      threads: 4,
    });
    expect(topology(4, { preferredCPUTopology: "any" })).toEqual({ sockets: 4, cores: 1, threads: 1 });
    expect(topology(4, { preferredCPUTopology: "spread" })).toEqual({ sockets: 2, cores: 2, threads: 1 });
    expect(topology(6, { preferredCPUTopology: "preferSpread" }, 3)).toEqual({
      sockets: 2,
      cores: 3,
      threads: 1,
    });
    const coresThreads = { preferredCPUTopology: "spread", spreadOptions: { across: "CoresThreads" } };
    expect(topology(4, coresThreads)).toEqual({ sockets: 1, cores: 2, threads: 2 });
    const all = {
      preferredCPUTopology: "spread",
      spreadOptions: { across: "SocketsCoresThreads", ratio: 2 },
    };
    expect(topology(8, all)).toEqual({ sockets: 2, cores: 2, threads: 2 });
    expect(topology(1, { preferredCPUTopology: "cores" })).toEqual({ sockets: 1, cores: 1, threads: 1 });
  });

  it("reports every CPU field the VM also sets with upstream's message, and applies nothing", () => {
    const spec: VirtualMachineInstanceSpec = {
      domain: {
        devices: {},
        cpu: { sockets: 2, cores: 1, model: "x" },
        resources: { requests: { cpu: "1" }, limits: { cpu: "1" } },
      },
    };
    const { conflicts } = apply(instancetype({ cpu: { guest: 2, model: "y" } }), undefined, spec);
    expect(new Conflicts(conflicts).message).toBe(
      "VM field(s) spec.template.spec.domain.resources.requests.cpu, spec.template.spec.domain.resources.limits.cpu, " +
        "spec.template.spec.domain.cpu.sockets, spec.template.spec.domain.cpu.cores, " +
        "spec.template.spec.domain.cpu.model conflicts with selected instance type",
    );
    expect(conflicts[2]?.statusCause()).toEqual({
      reason: "FieldValueInvalid",
      field: "spec.template.spec.domain.cpu.sockets",
      message: "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
    });
    expect(spec.domain.cpu?.model).toBe("x");
  });

  it("refuses a guest memory or memory requests the VM sets", () => {
    const guest = apply(instancetype(), undefined, { domain: { devices: {}, memory: { guest: "2Gi" } } });
    expect(guest.conflicts.map((c) => c.error())).toEqual([
      "VM field(s) spec.template.spec.domain.memory.guest conflicts with selected instance type",
    ]);
    const requests = apply(instancetype(), undefined, {
      domain: { devices: {}, resources: { requests: { memory: "1Gi" } } },
    });
    expect(requests.conflicts.map((c) => c.path.toString())).toEqual([
      "spec.template.spec.domain.resources.requests.memory",
    ]);
  });

  it("asks the pod for less memory when the instance type overcommits (float32 as upstream)", () => {
    expect(overcommittedRequest("1Gi", 10)).toBe("966367616");
    const { spec } = apply(instancetype({ memory: { guest: "1Gi", overcommitPercent: 50 } }), undefined);
    expect(spec.domain.resources?.requests?.memory).toBe("512Mi");
  });

  it("applies scheduling, devices and annotations, each conflicting with what the VM sets", () => {
    const it = instancetype({
      nodeSelector: { a: "b" },
      schedulerName: "s",
      gpus: [{ name: "g", deviceName: "d" }],
      annotations: { k: "v", same: "x" },
      ioThreadsPolicy: "auto",
      ioThreads: { supplementalPoolThreadCount: 2 },
    });
    const ok = apply(it, undefined, undefined, { annotations: { same: "x" } });
    expect(ok.conflicts).toEqual([]);
    expect(ok.spec.nodeSelector).toEqual({ a: "b" });
    expect(ok.spec.schedulerName).toBe("s");
    expect(ok.spec.domain.devices?.gpus).toEqual([{ name: "g", deviceName: "d" }]);
    expect(ok.spec.domain.ioThreadsPolicy).toBe("auto");
    expect(ok.spec.domain.ioThreads).toEqual({ supplementalPoolThreadCount: 2 });
    expect(ok.metadata.annotations).toEqual({ same: "x", k: "v" });
    const clash = apply(
      it,
      undefined,
      {
        nodeSelector: {},
        schedulerName: "t",
        domain: { devices: { gpus: [{ name: "h", deviceName: "e" }] }, ioThreadsPolicy: "shared" },
      },
      { annotations: { k: "other" } },
    );
    expect(clash.conflicts.map((c) => c.path.toString())).toEqual([
      "spec.template.spec.nodeSelector",
      "spec.template.spec.schedulerName",
      "spec.template.spec.domain.ioThreadsPolicy",
      "spec.template.spec.domain.devices.gpus",
      "annotations.k",
    ]);
  });

  it("applies no preference when the instance type conflicts", () => {
    const spec: VirtualMachineInstanceSpec = { domain: { devices: {}, cpu: { threads: 2 } } };
    apply(instancetype(), { machine: { preferredMachineType: "q35" } }, spec);
    expect(spec.domain.machine).toBeUndefined();
  });
});
