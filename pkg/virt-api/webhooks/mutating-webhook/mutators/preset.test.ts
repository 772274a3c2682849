// Presets on a new VMI: upstream preset_test.go's cases (annotations, what is filled in and what is an
// override, conflicts between presets, the exclusion annotation, selector matching).
import { describe, expect, it } from "vitest";
import type {
  DomainSpec,
  VirtualMachineInstance,
  VirtualMachineInstancePreset,
} from "../../../../api/generated/v1.js";
import { applyPresets, PresetExclusionAnnotation } from "./preset.js";

function preset(name: string, labels: Record<string, string>, domain: Partial<DomainSpec>) {
  return {
    metadata: { name, namespace: "default" },
    spec: { selector: { matchLabels: labels }, domain: { devices: {}, ...domain } },
  } satisfies VirtualMachineInstancePreset;
}

function vmi(labels: Record<string, string>, domain: Partial<DomainSpec> = {}): VirtualMachineInstance {
  return {
    metadata: { name: "test-vmi", namespace: "default", labels },
    spec: { domain: { devices: {}, ...domain } },
  };
}

const memory64 = preset(
  "memory-64",
  { "kubevirt.io/m64": "memory-64" },
  { resources: { requests: { memory: "64M" } } },
);
const memory128 = preset(
  "memory-128",
  { "kubevirt.io/m128": "memory-128" },
  { resources: { requests: { memory: "128M" } } },
);
const cpu4 = preset("cpu-4", { "kubevirt.io/cpu": "cpu-4" }, { cpu: { cores: 4 } });
const duplicateMemory = preset(
  "duplicate-mem",
  { "kubevirt.io/m64": "memory-64" },
  { resources: { requests: { memory: "64M" } } },
);
const all = [memory64, memory128, cpu4, duplicateMemory];

describe("applyPresets", () => {
  it("annotates the VMI with every preset applied", () => {
    const target = vmi({ "kubevirt.io/m64": "memory-64", "kubevirt.io/cpu": "cpu-4" });
    expect(applyPresets(target, [memory64, cpu4, duplicateMemory])).toEqual({ ok: true });
    expect(target.metadata?.annotations).toEqual({
      "virtualmachinepreset.kubevirt.io/memory-64": "kubevirt.io/v1",
      "virtualmachinepreset.kubevirt.io/cpu-4": "kubevirt.io/v1",
      "virtualmachinepreset.kubevirt.io/duplicate-mem": "kubevirt.io/v1",
    });
    expect(target.spec.domain.resources?.requests).toEqual({ memory: "64M" });
    expect(target.spec.domain.cpu).toEqual({ cores: 4 });
  });

  it("refuses the VMI, applying nothing, when matching presets conflict", () => {
    const target = vmi({
      "kubevirt.io/m64": "memory-64",
      "kubevirt.io/m128": "memory-128",
      "kubevirt.io/cpu": "cpu-4",
    });
    const result = applyPresets(target, all);
    expect(result).toEqual({
      ok: false,
      message:
        "VirtualMachinePresets cannot be applied due to conflicts: [presets 'memory-128' and 'memory-64' conflict: spec.resources.requests[memory]: {{128 6} {<nil>} 128M DecimalSI} != {{64 6} {<nil>} 64M DecimalSI}, presets 'duplicate-mem' and 'memory-128' conflict: spec.resources.requests[memory]: {{64 6} {<nil>} 64M DecimalSI} != {{128 6} {<nil>} 128M DecimalSI}]",
    });
    expect(target.metadata?.annotations).toBeUndefined();
    expect(target.spec.domain.resources).toBeUndefined();
    expect(target.spec.domain.cpu).toBeUndefined();
  });

  it("does not count equal settings as a conflict, but equal quantities written differently, as upstream's !=", () => {
    expect(applyPresets(vmi({ "kubevirt.io/m64": "memory-64" }), [memory64, memory64]).ok).toBe(true);
    const kilobytes = preset(
      "k",
      { "kubevirt.io/m64": "memory-64" },
      { resources: { requests: { memory: "64000k" } } },
    );
    expect(applyPresets(vmi({ "kubevirt.io/m64": "memory-64" }), [memory64, kilobytes])).toEqual({
      ok: false,
      message:
        "VirtualMachinePresets cannot be applied due to conflicts: presets 'k' and 'memory-64' conflict: " +
        "spec.resources.requests[memory]: {{64000 3} {<nil>}  DecimalSI} != {{64 6} {<nil>} 64M DecimalSI}",
    });
  });

  it("keeps the VMI's own setting and skips the annotation when the preset would override it", () => {
    const warnings: string[] = [];
    const target = vmi({ "kubevirt.io/cpu": "cpu-4" }, { cpu: { cores: 6 } });
    expect(applyPresets(target, [cpu4], (message) => warnings.push(message)).ok).toBe(true);
    expect(target.spec.domain.cpu).toEqual({ cores: 6 });
    expect(target.metadata?.annotations).toBeUndefined();
    expect(warnings).toEqual([
      "Unable to apply VirtualMachineInstancePreset 'cpu-4': spec.cpu: &{4 0 0 0  [] false <nil> false <nil>} != &{6 0 0 0  [] false <nil> false <nil>}",
    ]);
  });

  it("annotates a preset whose settings the VMI already has", () => {
    const target = vmi({ "kubevirt.io/cpu": "cpu-4" }, { cpu: { cores: 4 } });
    applyPresets(target, [cpu4]);
    expect(target.metadata?.annotations).toEqual({
      "virtualmachinepreset.kubevirt.io/cpu-4": "kubevirt.io/v1",
    });
  });

  it("copies requests only into a VMI without any", () => {
    const target = vmi({ "kubevirt.io/m64": "memory-64" }, { resources: { requests: { cpu: "1" } } });
    applyPresets(target, [memory64]);
    expect(target.spec.domain.resources?.requests).toEqual({ cpu: "1" });
    expect(target.metadata?.annotations).toBeUndefined();
  });

  it.each<[string, Partial<DomainSpec>, (domain: DomainSpec) => unknown]>([
    ["firmware", { firmware: { uuid: "11112222-3333-4444-5555-666677778888" } }, (d) => d.firmware],
    ["clock", { clock: { utc: { offsetSeconds: 10 }, timer: { hpet: { present: false } } } }, (d) => d.clock],
    ["features", { features: { acpi: {}, apic: { enabled: true } } }, (d) => d.features],
    [
      "watchdog",
      { devices: { watchdog: { name: "testcase", i6300esb: { action: "poweroff" } } } },
      (d) => d.devices.watchdog,
    ],
    ["ioThreadsPolicy", { ioThreadsPolicy: "auto" }, (d) => d.ioThreadsPolicy],
  ])("applies %s settings", (_what, domain, read) => {
    const target = vmi({ app: "x" });
    const source = preset("p", { app: "x" }, domain);
    applyPresets(target, [source]);
    expect(read(target.spec.domain)).toEqual(read(source.spec.domain as DomainSpec));
    expect(target.metadata?.annotations).toEqual({ "virtualmachinepreset.kubevirt.io/p": "kubevirt.io/v1" });
  });

  it("detects a clock offset override", () => {
    const target = vmi({ app: "x" }, { clock: { timezone: "America/New_York" } });
    const warnings: string[] = [];
    applyPresets(target, [preset("p", { app: "x" }, { clock: { utc: {} } })], (m) => warnings.push(m));
    expect(target.spec.domain.clock).toEqual({ timezone: "America/New_York" });
    expect(warnings[0]).toContain("spec.clock.clockoffset: ");
  });

  it("skips a VMI carrying the exclusion annotation", () => {
    const target = vmi({ "kubevirt.io/cpu": "cpu-4" });
    target.metadata = { ...target.metadata, annotations: { [PresetExclusionAnnotation]: "true" } };
    applyPresets(target, [cpu4]);
    expect(target.spec.domain.cpu).toBeUndefined();
  });

  it("applies presets whose selector matches the VMI's labels only", () => {
    const target = vmi({ "kubevirt.io/flavor": "matching" });
    const matching = preset("test-preset", { "kubevirt.io/flavor": "matching" }, { cpu: { cores: 2 } });
    const unrelated = preset(
      "unrelated-preset",
      { "kubevirt.io/flavor": "unrelated" },
      { cpu: { cores: 8 } },
    );
    applyPresets(target, [matching, unrelated]);
    expect(Object.keys(target.metadata?.annotations ?? {})).toEqual([
      "virtualmachinepreset.kubevirt.io/test-preset",
    ]);
  });

  it("does not ignore bogus selectors", () => {
    const broken = preset("broken-preset", { "kubevirt.io/flavor": "!" }, {});
    const result = applyPresets(vmi({ "kubevirt.io/flavor": "matching" }), [broken]);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.message).toContain(`values[0][kubevirt.io/flavor]: Invalid value: "!"`);
  });
});
