// One row per memory and CPU rule: the change to a valid spec and exactly the causes upstream answers with.
import { describe, expect, it } from "vitest";
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { specPath } from "../../../../api/causes.js";
import { numberOfVCPUs } from "./compute.js";
import { validateMemoryIsRequested } from "./memory.js";
import { invalid, notSupported, required, specCauses, specWith, type RuleRow } from "./testing.js";

const STAGE_ROLLOUT = clusterWith({ vmRolloutStrategy: "Stage" });

function resources(
  spec: VirtualMachineInstanceSpec,
  requests: Record<string, string>,
  limits?: Record<string, string>,
) {
  spec.domain.resources = limits === undefined ? { requests } : { requests, limits };
}

function dedicated(
  spec: VirtualMachineInstanceSpec,
  cpu: NonNullable<VirtualMachineInstanceSpec["domain"]["cpu"]>,
) {
  spec.domain.cpu = { dedicatedCpuPlacement: true, ...cpu };
}

const memoryRows: RuleRow[] = [
  {
    rule: "memory requests are not negative",
    change: (spec) => resources(spec, { memory: "-64Mi" }),
    causes: [
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory '-64Mi': must be greater than or equal to 0.",
      ),
    ],
  },
  {
    rule: "memory requests are at least 1M",
    change: (spec) => resources(spec, { memory: "512k" }),
    causes: [
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory '512k': must be greater than or equal to 1M.",
      ),
    ],
  },
  {
    rule: "memory limits are not negative",
    change: (spec) => resources(spec, { memory: "64Mi" }, { memory: "-1Gi" }),
    causes: [
      invalid(
        "spec.domain.resources.limits.memory",
        "spec.domain.resources.limits.memory '-1Gi': must be greater than or equal to 0.",
      ),
    ],
  },
  {
    rule: "memory requests do not exceed limits",
    change: (spec) => resources(spec, { memory: "128Mi" }, { memory: "64Mi" }),
    causes: [
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory '128Mi' is greater than spec.domain.resources.limits.memory '64Mi'",
      ),
    ],
  },
  {
    rule: "guest memory fits the limit (Stage rollout)",
    change: (spec) => {
      resources(spec, { memory: "64Mi" }, { memory: "64Mi" });
      spec.domain.memory = { guest: "0.125Gi" };
    },
    config: STAGE_ROLLOUT,
    causes: [
      invalid(
        "spec.domain.memory.guest",
        "spec.domain.memory.guest '128Mi' must be equal to or less than the memory limit spec.domain.resources.limits.memory '64Mi'",
      ),
    ],
  },
  {
    rule: "guest memory may exceed the limit when live updates can grow it",
    change: (spec) => {
      resources(spec, { memory: "64Mi" }, { memory: "64Mi" });
      spec.domain.memory = { guest: "128Mi" };
    },
    causes: [],
  },
  {
    rule: "hugepages divide the memory",
    change: (spec) => {
      resources(spec, { memory: "3Mi" });
      spec.domain.memory = { hugepages: { pageSize: "2Mi" } };
    },
    causes: [
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory '3Mi' is not a multiple of the page size spec.domain.memory.hugepages.pageSize '2Mi'",
      ),
    ],
  },
  {
    rule: "hugepages are not larger than the memory",
    change: (spec) => {
      resources(spec, { memory: "64Mi" });
      spec.domain.memory = { hugepages: { pageSize: "1Gi" } };
    },
    causes: [
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory '64Mi' must be equal to or larger than page size spec.domain.memory.hugepages.pageSize '1Gi'",
      ),
    ],
  },
  {
    rule: "a hugepage size parses",
    change: (spec) => {
      spec.domain.memory = { hugepages: { pageSize: "two megs" } };
    },
    causes: [
      invalid(
        "spec.domain.memory.hugepages.pageSize",
        "spec.domain.memory.hugepages.pageSize 'two megs': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ),
    ],
  },
  {
    rule: "a reserved memlock overhead needs its feature gate",
    change: (spec) => {
      spec.domain.memory = { reservedOverhead: {} };
    },
    causes: [
      invalid(
        "spec.domain.memory.reservedOverhead",
        "Reserved overhead memlock feature gate is not enabled in kubevirt-config",
      ),
    ],
  },
];

const cpuRows: RuleRow[] = [
  {
    rule: "CPU requests are not negative",
    change: (spec) => resources(spec, { memory: "64Mi", cpu: "-100m" }),
    causes: [
      invalid(
        "spec.domain.resources.requests.cpu",
        "spec.domain.resources.requests.cpu '-100m': must be greater than or equal to 0.",
      ),
    ],
  },
  {
    rule: "CPU requests do not exceed limits",
    change: (spec) => resources(spec, { memory: "64Mi", cpu: "1500m" }, { cpu: "1" }),
    causes: [
      invalid(
        "spec.domain.resources.requests.cpu",
        "spec.domain.resources.requests.cpu '1500m' is greater than spec.domain.resources.limits.cpu '1'",
      ),
    ],
  },
  {
    rule: "the machine type is one the cluster emulates",
    change: (spec) => {
      spec.domain.machine = { type: "pc-i440fx-7.2" };
    },
    causes: [
      invalid(
        "spec.domain.machine.type",
        "spec.domain.machine.type is not supported: pc-i440fx-7.2 (allowed values: [q35* pc-q35*])",
      ),
    ],
  },
  {
    rule: "versioned q35 machine types match the patterns",
    change: (spec) => {
      spec.domain.machine = { type: "pc-q35-rhel9.4.0" };
    },
    causes: [],
  },
  {
    rule: "sockets stay within maxSockets",
    change: (spec) => {
      spec.domain.cpu = { sockets: 4, maxSockets: 2 };
    },
    causes: [
      invalid(
        "spec.domain.cpu.sockets",
        "Number of sockets in CPU topology is greater than the maximum sockets allowed",
      ),
    ],
  },
  {
    rule: "emulator thread isolation needs dedicated CPUs",
    change: (spec) => {
      spec.domain.cpu = { isolateEmulatorThread: true };
    },
    causes: [
      invalid(
        "spec.domain.cpu.isolateEmulatorThread",
        "IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement",
      ),
    ],
  },
  {
    rule: "CPU feature policies are known",
    change: (spec) => {
      spec.domain.cpu = { features: [{ name: "vmx", policy: "maybe" }] };
    },
    causes: [
      notSupported(
        "spec.domain.cpu.features[0].policy",
        "CPU feature vmx uses policy maybe that is not supported.",
      ),
    ],
  },
  {
    // 1500m counts as 2 CPUs (Go rounds up), so requests and limits compare equal here.
    rule: "dedicated CPUs: whole CPUs, memory requests equal limits, consistent counts, at most two threads",
    change: (spec) => {
      resources(spec, { memory: "64Mi", cpu: "1500m" }, { memory: "128Mi", cpu: "2" });
      dedicated(spec, { threads: 3 });
    },
    causes: [
      invalid("spec.domain.resources.requests.cpu", "provided resources CPU requests must be an interger"),
      invalid(
        "spec.domain.resources.requests.memory",
        "spec.domain.resources.requests.memory must be equal to spec.domain.resources.limits.memory",
      ),
      invalid(
        "spec.domain.cpu.dedicatedCpuPlacement",
        "spec.domain.resources.requests.cpu or spec.domain.resources.limits.cpu must not be provided at the same time with spec.domain.cpu.cores when DedicatedCPUPlacement is true ",
      ),
      invalid(
        "spec.domain.cpu.dedicatedCpuPlacement",
        "Not more than two threads must be provided at spec.domain.cpu.threads (got 3) when DedicatedCPUPlacement is true",
      ),
    ],
  },
  {
    rule: "dedicated CPUs: CPU requests equal limits",
    change: (spec) => {
      resources(spec, { memory: "64Mi", cpu: "1" }, { cpu: "2" });
      dedicated(spec, {});
    },
    causes: [
      invalid(
        "spec.domain.cpu.dedicatedCpuPlacement",
        "spec.domain.resources.requests.cpu or spec.domain.resources.limits.cpu must be equal when DedicatedCPUPlacement is true ",
      ),
    ],
  },
  {
    rule: "dedicated CPUs need a CPU count and memory",
    change: (spec) => {
      spec.domain.resources = {};
      dedicated(spec, {});
    },
    causes: [
      invalid(
        "spec.domain.resources.limits.memory",
        "spec.domain.resources.requests.memory, spec.domain.resources.limits.memory, spec.domain.memory.hugepages or spec.domain.memory.guest should be provided",
      ),
      invalid(
        "spec.domain.cpu.dedicatedCpuPlacement",
        "either spec.domain.resources.requests.cpu or spec.domain.resources.limits.cpu or spec.domain.cpu.cores must be provided when DedicatedCPUPlacement is true ",
      ),
    ],
  },
  {
    rule: "arm64 guests have one thread per core",
    change: (spec) => {
      spec.architecture = "arm64";
      dedicated(spec, { cores: 2, threads: 2 });
    },
    causes: [
      invalid(
        "spec.architecture",
        "threads must not be greater than 1 at spec.domain.cpu.threads (got 2) when spec.architecture is arm64",
      ),
    ],
  },
  {
    rule: "NUMA passthrough needs dedicated CPUs and hugepages",
    change: (spec) => {
      spec.domain.cpu = { numa: { guestMappingPassthrough: {} } };
    },
    causes: [
      invalid(
        "spec.domain.cpu.numa.guestMappingPassthrough",
        "spec.domain.cpu.dedicatedCpuPlacement must be set to true when NUMA topology strategy is set in spec.domain.cpu.numa.guestMappingPassthrough",
      ),
      invalid(
        "spec.domain.cpu.numa.guestMappingPassthrough",
        "spec.domain.memory.hugepages must be requested when NUMA topology strategy is set in spec.domain.cpu.numa.guestMappingPassthrough",
      ),
    ],
  },
  {
    rule: "realtime needs dedicated CPUs and NUMA passthrough",
    change: (spec) => {
      spec.domain.cpu = { realtime: {} };
    },
    causes: [
      required(
        "spec.domain.cpu.dedicatedCpuPlacement",
        "spec.domain.cpu.dedicatedCpuPlacement must be set to true when spec.domain.cpu.realtime is used",
      ),
      required(
        "spec.domain.cpu.numa.guestMappingPassthrough",
        "spec.domain.cpu.numa.guestMappingPassthrough must be defined when spec.domain.cpu.realtime is used",
      ),
    ],
  },
  {
    rule: "the IOThreads policy is known",
    change: (spec) => {
      spec.domain.ioThreadsPolicy = "dedicated";
    },
    causes: [invalid("spec.domain.ioThreadsPolicy", "Invalid IOThreadsPolicy (dedicated)")],
  },
  {
    rule: "the supplemental pool needs a thread count",
    change: (spec) => {
      spec.domain.ioThreadsPolicy = "supplementalPool";
    },
    causes: [
      invalid(
        "spec.domain.ioThreads.count",
        "the number of iothreads needs to be set and positive for the dedicated policy",
      ),
    ],
  },
];

describe("memory rules", () => {
  it.each(memoryRows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });

  it("a VMI asks for some memory (VMI creation only, upstream names no field)", () => {
    const spec = specWith((s) => {
      s.domain.resources = {};
    });
    expect(validateMemoryIsRequested(specPath(), spec)).toEqual([
      required(
        undefined,
        "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.memory.hugepages.pageSize' or 'spec.domain.resources.requests.memory' must be set",
      ),
    ]);
    expect(
      validateMemoryIsRequested(
        specPath(),
        specWith((s) => (s.domain.memory = { guest: "1Gi" })),
      ),
    ).toEqual([]);
  });
});

describe("CPU rules", () => {
  it.each(cpuRows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });

  it.each([
    [{}, 0],
    [{ cores: 2 }, 2],
    [{ sockets: 2, threads: 2 }, 4],
    [{ cores: 2, sockets: 3, threads: 2 }, 12],
  ])("counts vCPUs of %j as %i", (cpu, count) => {
    expect(numberOfVCPUs(cpu)).toBe(count);
  });
});
