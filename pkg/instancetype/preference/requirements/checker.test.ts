import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../api/generated/v1.js";
import type {
  VirtualMachineInstancetypeSpec,
  VirtualMachinePreferenceSpec,
} from "../../../api/generated/v1beta1.js";
import { checkPreferenceRequirements } from "./checker.js";

const instancetype = (guest: number, memory = "1Gi"): VirtualMachineInstancetypeSpec => ({
  cpu: { guest },
  memory: { guest: memory },
});
const vmi = (domain: Partial<VirtualMachineInstanceSpec["domain"]> = {}, architecture = "amd64") =>
  ({ architecture, domain: { devices: {}, ...domain } }) as VirtualMachineInstanceSpec;

function check(
  preference: VirtualMachinePreferenceSpec,
  spec: VirtualMachineInstanceSpec,
  type?: VirtualMachineInstancetypeSpec,
): { fields: string; message: string } | undefined {
  const failure = checkPreferenceRequirements(type, preference, spec);
  return failure && { fields: failure.fields(), message: failure.message };
}

describe("preference requirements", () => {
  it("asks nothing of a VM whose preference has no requirements", () => {
    expect(check({}, vmi())).toBeUndefined();
    expect(checkPreferenceRequirements(undefined, undefined, vmi())).toBeUndefined();
  });

  it("checks the instance type's vCPUs when there is one, whatever the VM's topology", () => {
    const preference = { requirements: { cpu: { guest: 2 } } };
    expect(check(preference, vmi(), instancetype(2))).toBeUndefined();
    expect(check(preference, vmi({ cpu: { sockets: 4 } }), instancetype(1))).toEqual({
      fields: "spec.instancetype",
      message: "insufficient CPU resources of 1 vCPU provided by instance type, preference requires 2 vCPU",
    });
  });

  it("needs a CPU on a VM without instance type", () => {
    expect(check({ requirements: { cpu: { guest: 2 } } }, vmi())).toEqual({
      fields: "spec.template.spec.domain.cpu",
      message: "no CPU resources provided by VirtualMachine, preference requires 2 vCPU",
    });
  });

  it("counts the dimension the preferred topology uses (sockets by default)", () => {
    const cpu = { sockets: 1, cores: 4, threads: 1 };
    expect(check({ requirements: { cpu: { guest: 2 } } }, vmi({ cpu }))).toEqual({
      fields: "spec.template.spec.domain.cpu.sockets",
      message:
        "insufficient CPU resources of 1 vCPU provided by VirtualMachine, preference requires 2 vCPU provided as sockets",
    });
    const cores = { cpu: { preferredCPUTopology: "preferCores" }, requirements: { cpu: { guest: 2 } } };
    expect(check(cores, vmi({ cpu }))).toBeUndefined();
    const threads = { cpu: { preferredCPUTopology: "threads" }, requirements: { cpu: { guest: 2 } } };
    expect(check(threads, vmi({ cpu }))?.fields).toBe("spec.template.spec.domain.cpu.threads");
  });

  it("multiplies every dimension for any, and the spread's dimensions for spread", () => {
    const cpu = { sockets: 2, cores: 1, threads: 2 };
    const any = { cpu: { preferredCPUTopology: "any" }, requirements: { cpu: { guest: 5 } } };
    expect(check(any, vmi({ cpu }))).toEqual({
      fields:
        "spec.template.spec.domain.cpu.cores, spec.template.spec.domain.cpu.sockets, spec.template.spec.domain.cpu.threads",
      message:
        "insufficient CPU resources of 4 vCPU provided by VirtualMachine, preference requires 5 vCPU provided as cores, sockets and threads",
    });
    const spread = { cpu: { preferredCPUTopology: "spread" }, requirements: { cpu: { guest: 3 } } };
    expect(check(spread, vmi({ cpu }))).toEqual({
      fields: "spec.template.spec.domain.cpu.sockets, spec.template.spec.domain.cpu.cores",
      message:
        "insufficient CPU resources of 2 vCPU provided by VirtualMachine, preference requires 3 vCPU provided as SocketsCores",
    });
    const acrossAll = {
      cpu: { preferredCPUTopology: "spread", spreadOptions: { across: "SocketsCoresThreads" } },
      requirements: { cpu: { guest: 4 } },
    };
    expect(check(acrossAll, vmi({ cpu }))).toBeUndefined();
  });

  it("takes the VM's guest memory over the instance type's and names the source", () => {
    const preference = { requirements: { memory: { guest: "2Gi" } } };
    expect(check(preference, vmi(), instancetype(1, "1Gi"))).toEqual({
      fields: "spec.instancetype",
      message: "insufficient Memory resources of 1Gi provided by instance type, preference requires 2Gi",
    });
    expect(check(preference, vmi({ memory: { guest: "2048Mi" } }), instancetype(1, "1Gi"))).toBeUndefined();
    expect(check(preference, vmi())).toEqual({
      fields: "spec.template.spec.domain.memory",
      message: "insufficient Memory resources of 0 provided by VirtualMachine, preference requires 2Gi",
    });
  });

  it("requires the architecture asked for, after CPU and memory", () => {
    expect(check({ requirements: { architecture: "arm64" } }, vmi({}, "amd64"))).toEqual({
      fields: "spec.template.spec.architecture",
      message: "preference requires architecture arm64 but amd64 is being requested",
    });
    const both = { requirements: { architecture: "arm64", memory: { guest: "1Gi" } } };
    expect(check(both, vmi())?.fields).toBe("spec.template.spec.domain.memory");
  });
});
