import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { getMemoryOverhead } from "./memory-overhead.js";

// Upstream's GetMemoryOverhead table (pkg/hypervisor/kvm/hypervisorbackend_test.go): a VMI requesting 1Gi
// costs 2Mi of page tables + 248Mi of fixed processes and IO thread + 8Mi per vCPU + 32Mi of video RAM.

const Mi = 1024n * 1024n;
const base = 290n * Mi;

function vmi(change: (vmi: VirtualMachineInstance) => void = () => undefined): VirtualMachineInstance {
  const object: VirtualMachineInstance = {
    metadata: { name: "test-vmi" },
    spec: { domain: { devices: {}, resources: { requests: { memory: "1Gi" }, limits: {} } } },
  };
  change(object);
  return object;
}

const execProbe = { exec: { command: ["true"] } };

describe("getMemoryOverhead", () => {
  it.each<[string, VirtualMachineInstance, string, bigint]>([
    ["nothing special: base + static + video + one vCPU", vmi(), "amd64", base],
    [
      "2 cores × 2 threads × 2 sockets: 8 vCPUs",
      vmi((v) => (v.spec.domain.cpu = { cores: 2, threads: 2, sockets: 2 })),
      "amd64",
      base + 56n * Mi,
    ],
    [
      "CPU limits win over requests when there is no topology",
      vmi((v) =>
        Object.assign(v.spec.domain.resources ?? {}, {
          requests: { memory: "1Gi", cpu: "3" },
          limits: { cpu: "5" },
        }),
      ),
      "amd64",
      base + 32n * Mi,
    ],
    [
      "CPU requests without limits",
      vmi((v) => Object.assign(v.spec.domain.resources ?? {}, { requests: { memory: "1Gi", cpu: "3" } })),
      "amd64",
      base + 16n * Mi,
    ],
    [
      "no graphics device: no video RAM",
      vmi((v) => (v.spec.domain.devices.autoattachGraphicsDevice = false)),
      "amd64",
      base - 32n * Mi,
    ],
    ["arm64 firmware flash", vmi(), "arm64", base + 128n * Mi],
    [
      "a host device (VFIO)",
      vmi((v) => (v.spec.domain.devices.hostDevices = [{ name: "test", deviceName: "x" }])),
      "amd64",
      base + 1024n * Mi,
    ],
    [
      "a GPU (VFIO)",
      vmi((v) => (v.spec.domain.devices.gpus = [{ name: "test", deviceName: "x" }])),
      "amd64",
      base + 1024n * Mi,
    ],
    [
      "an SR-IOV interface (VFIO)",
      vmi((v) => (v.spec.domain.devices.interfaces = [{ name: "test", sriov: {} }])),
      "amd64",
      base + 1024n * Mi,
    ],
    [
      "a downward metrics volume",
      vmi((v) => (v.spec.volumes = [{ name: "m", downwardMetrics: {} }])),
      "amd64",
      base + 1n * Mi,
    ],
    ["an exec liveness probe", vmi((v) => (v.spec.livenessProbe = execProbe)), "amd64", base + 110n * Mi],
    ["an exec readiness probe", vmi((v) => (v.spec.readinessProbe = execProbe)), "amd64", base + 110n * Mi],
    [
      "both exec probes",
      vmi((v) => Object.assign(v.spec, { livenessProbe: execProbe, readinessProbe: execProbe })),
      "amd64",
      base + 120n * Mi,
    ],
    ["AMD SEV", vmi((v) => (v.spec.domain.launchSecurity = { sev: {} })), "amd64", base + 256n * Mi],
    ["a TPM (swtpm)", vmi((v) => (v.spec.domain.devices.tpm = {})), "amd64", base + 53n * Mi],
    ["a disabled TPM", vmi((v) => (v.spec.domain.devices.tpm = { enabled: false })), "amd64", base],
    [
      "dedicated CPUs",
      vmi((v) => (v.spec.domain.cpu = { cores: 1, dedicatedCpuPlacement: true })),
      "amd64",
      base + 100n * Mi,
    ],
    [
      "QoS Guaranteed requested",
      vmi((v) => {
        v.spec.domain.cpu = { cores: 1 };
        v.spec.domain.resources = {
          requests: { memory: "1Gi", cpu: "4" },
          limits: { memory: "1Gi", cpu: "4" },
        };
      }),
      "amd64",
      base + 100n * Mi,
    ],
    [
      "reserved overhead added by the user",
      vmi((v) => (v.spec.domain.memory = { reservedOverhead: { addedOverhead: "10Mi" } })),
      "amd64",
      base + 10n * Mi,
    ],
  ])("%s", (_name, subject, arch, expected) => {
    expect(getMemoryOverhead(subject, arch).value()).toBe(expected);
  });

  it("multiplies by additionalGuestMemoryOverheadRatio last, in whole kilobytes", () => {
    // 290Mi = 304087040 B → 304088 kB; 304088 × 2.2 = 668993.6 → 668993 kB more.
    expect(getMemoryOverhead(vmi(), "amd64", "3.2").value()).toBe(base + 668_993_000n);
  });

  it("ignores a ratio that is not a number, as upstream does", () => {
    expect(getMemoryOverhead(vmi(), "amd64", "no_float").value()).toBe(base);
  });

  it("counts page tables on the request rounded up to kilobytes, and none without a request", () => {
    const small = vmi((v) => (v.spec.domain.resources = { requests: { memory: "128M" } }));
    // 128000 kB × 1000 / 512 = 250000 B
    expect(getMemoryOverhead(small, "amd64").value()).toBe(288n * Mi + 250_000n);
    const none = vmi((v) => (v.spec.domain.resources = {}));
    expect(getMemoryOverhead(none, "amd64").value()).toBe(288n * Mi);
  });
});
