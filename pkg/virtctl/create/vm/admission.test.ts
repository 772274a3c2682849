// What `virtctl create vm` prints is a VM the webhooks take: parsed from the YAML as kubectl would
// send it, defaulted by the VM mutator and admitted by the VM validating admitter, as on creation.
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../../api/generated/v1.js";
import { clusterWith } from "../../../defaults/testing.js";
import { applyVMMutations } from "../../../virt-api/webhooks/mutating-webhook/mutators/vm-mutator.js";
import { admitVirtualMachine } from "../../../virt-api/webhooks/validating-webhook/admitters/vms-admitter.js";
import { execute } from "../../root.js";
import { testIO } from "../../testing/scripted-apiserver.js";

async function createVM(args: string[]): Promise<VirtualMachine> {
  const io = testIO();
  expect(await execute(["create", "vm", ...args], io, "virtctl")).toBe(0);
  return parse(io.output()) as VirtualMachine;
}

const clusterConfig = clusterWith();
const context = { clusterConfig, kubeVirtServiceAccounts: new Set<string>() };
const admit = (object: unknown) =>
  admitVirtualMachine({ operation: "CREATE", object, username: "alice" }, context);

describe("manifests from create vm pass the VM admission", () => {
  it.each([
    [
      "a containerdisk with a generated NoCloud config",
      [
        "--name=fedora",
        "--volume-containerdisk=src:quay.io/containerdisks/fedora:latest",
        "--user=fedora",
        "--ssh-key=ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host",
        "--cloud-init-network-data=bmV0d29yazoKICB2ZXJzaW9uOiAyCg==",
      ],
    ],
    [
      "a containerdisk with given user data and a boot order",
      [
        "--volume-containerdisk=src:quay.io/containerdisks/cirros:latest,bootorder:1",
        "--cloud-init-user-data=I2Nsb3VkLWNvbmZpZwpwYXNzd29yZDogZ29jdWJzZ28K",
        "--run-strategy=halted",
        "--memory=256Mi",
      ],
    ],
  ])("%s", async (_title, args) => {
    const vm = await createVM(args);
    expect(admit(vm)).toEqual({ causes: [], warnings: [] });
    // As virt-api sees it after its mutating webhook.
    const mutated = applyVMMutations(vm, "CREATE", { clusterConfig });
    expect(admit(mutated)).toEqual({ causes: [], warnings: [] });
  });

  it("a ConfigDrive data source is admitted (the storage issue's subset)", async () => {
    const vm = await createVM([
      "--volume-containerdisk=src:quay.io/containerdisks/cirros:latest",
      "--cloud-init=configdrive",
    ]);
    expect(admit(vm).causes).toEqual([]);
  });

  it("and a broken template is still refused there (the check can fail)", async () => {
    const vm = await createVM([
      "--volume-containerdisk=src:quay.io/containerdisks/fedora:latest",
      "--user=fedora",
    ]);
    (vm.spec.template.spec as { domain: { devices: { disks?: unknown[] } } }).domain.devices.disks = [
      { name: "missing" },
    ];
    expect(admit(vm).causes).not.toEqual([]);
  });
});
