import { describe, expect, it } from "vitest";
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineInstanceSpec,
  VirtualMachineSpec,
} from "../../../api/generated/v1.js";
import { isRestartRequired } from "./vm-restart-required.js";

// upstream's syncRestartRequired, less the live updates kubevirt-ts does not make yet.

const UUID = "5d307ca9-b3ef-428c-8861-06e72d69f223";
const templateSpec = (change: (spec: VirtualMachineInstanceSpec) => void = () => undefined) => {
  const spec: VirtualMachineInstanceSpec = {
    domain: { devices: {}, firmware: { uuid: UUID }, memory: { guest: "128Mi" } },
    hostname: "a",
  };
  change(spec);
  return spec;
};
const vmSpec = (spec: VirtualMachineInstanceSpec, extra: Partial<VirtualMachineSpec> = {}) => ({
  runStrategy: "Always",
  template: { metadata: { labels: { app: "a" } }, spec },
  ...extra,
});
const vm = (spec: VirtualMachineSpec): VirtualMachine => ({ metadata: { name: "vm" }, spec });
const vmi = (uuid: string | undefined): VirtualMachineInstance => ({
  metadata: { name: "vm" },
  spec: { domain: { devices: {}, firmware: { uuid } } },
});

describe("isRestartRequired", () => {
  it.each<[string, VirtualMachineSpec, VirtualMachineSpec, string | undefined, boolean]>([
    ["the same template", vmSpec(templateSpec()), vmSpec(templateSpec()), UUID, false],
    [
      "a changed hostname",
      vmSpec(templateSpec()),
      vmSpec(templateSpec((spec) => (spec.hostname = "b"))),
      UUID,
      true,
    ],
    [
      // No memory hotplug yet: upstream's LiveUpdate rollout would take this without a restart.
      "a changed guest memory",
      vmSpec(templateSpec()),
      vmSpec(templateSpec((spec) => (spec.domain.memory = { guest: "256Mi" }))),
      UUID,
      true,
    ],
    [
      "a changed run strategy (outside the template)",
      vmSpec(templateSpec()),
      vmSpec(templateSpec(), { runStrategy: "Manual" }),
      UUID,
      false,
    ],
    [
      "changed template labels (metadata, not spec)",
      vmSpec(templateSpec()),
      { ...vmSpec(templateSpec()), template: { metadata: { labels: { app: "b" } }, spec: templateSpec() } },
      UUID,
      false,
    ],
    [
      "a firmware UUID written into the template that the VMI already runs with",
      vmSpec(templateSpec((spec) => (spec.domain.firmware = {}))),
      vmSpec(templateSpec()),
      UUID,
      false,
    ],
    [
      "a firmware UUID the VMI does not run with",
      vmSpec(templateSpec((spec) => (spec.domain.firmware = {}))),
      vmSpec(templateSpec()),
      "another-uuid",
      true,
    ],
  ])("%s", (_name, startedFrom, current, vmiUUID, expected) => {
    expect(isRestartRequired(startedFrom, vm(current), vmi(vmiUUID))).toBe(expected);
  });
});
