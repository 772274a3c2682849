// Admission through the operator-installed virt-api: upstream's own examples of kubevirt-ts's subset pass
// `kubectl apply --dry-run=server` as they are; everything else is refused with a message that says what
// is not supported (or which feature gate is off) — never a webhook failure. Invalid objects get
// upstream's messages.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { cluster, kubectl } from "./harness.js";

const EXAMPLES = join(cluster.repoRoot, "test/conformance/upstream-examples");

/** The examples inside the walking skeleton's subset. */
const ACCEPTED = [
  "clarge.yaml",
  "cluster-csmall.yaml",
  "csmall.yaml",
  "example-migration-policy.yaml",
  "virtio.yaml", // a preference
  "windows.yaml", // a preference
  // VMs sized by an instance type: one that does not exist yet is only logged by the webhook, as upstream
  "vm-cirros-clarge.yaml",
  "vm-cirros-clarge-virtio.yaml",
  "vm-cirros-clarge-windows.yaml",
  "vm-cirros-cluster-csmall.yaml",
  "vm-cirros-csmall.yaml",
  "vm-cirros.yaml",
  "vm-cirros-sata.yaml",
  "vm-alpine-multipvc.yaml",
  // admitted as upstream admits it; without CDI its DataVolume is never made (the VM reports why)
  "vm-alpine-datavolume.yaml",
  "vm-windows-clarge-windows.yaml",
  "vm-pool-cirros.yaml",
  "vm-priorityclass.yaml",
  "vmi-arm.yaml", // despite its name, a plain VMI with containerDisk, cloud-init and an emptyDisk
  "vmi-ephemeral.yaml",
  "vmi-fedora.yaml",
  "vmi-masquerade.yaml",
  "vmi-migratable.yaml",
  // secondary networks on multus; admission does not look for their NetworkAttachmentDefinitions, as upstream
  "vmi-multus-multiple-net.yaml",
  "vmi-multus-ptp.yaml",
  "vmi-nocloud.yaml",
  "vmi-preset-small.yaml", // kubectl prints the CRD's deprecation warning for it
  "vmi-pvc.yaml",
  "vmi-replicaset-cirros.yaml",
  "vmi-sata.yaml",
];

/** The warnings kubectl prints for an accepted example: upstream's deprecation notice for presets. */
const EXPECTED_WARNINGS: Readonly<Record<string, string>> = {
  "vmi-preset-small.yaml":
    "Warning: kubevirt.io/v1 VirtualMachineInstancePresets is now deprecated and will be removed in v2.\n",
};

/** How a refusal of something outside the subset reads. */
const CLEAR_REFUSAL =
  /not supported by kubevirt-ts yet|kubevirt-ts does not support|feature gate is not enabled/;

/** Examples inside the subset that upstream itself refuses on an empty cluster, and its message. */
const REFUSED_AS_UPSTREAM: Readonly<Record<string, string>> = {
  // the migration of a VMI that this cluster does not run
  "migration-job.yaml": 'the VMI "default/vmi-migratable" does not exist',
};

/** Examples without a KubeVirt object (priority classes, a resource claim template): kubevirt-ts has no say. */
const NOT_KUBEVIRT = ["non-preemtible.yaml", "pgpu-resource-claim-tmpl.yaml", "preemtible.yaml"];

const refusedExamples = () =>
  readdirSync(EXAMPLES).filter(
    (file) =>
      file.endsWith(".yaml") &&
      !ACCEPTED.includes(file) &&
      !NOT_KUBEVIRT.includes(file) &&
      !(file in REFUSED_AS_UPSTREAM),
  );

const dryRun = (file: string) => kubectl(["apply", "--dry-run=server", "-f", join(EXAMPLES, file)]);

describe("upstream's examples on kubectl apply --dry-run=server", () => {
  it.each(ACCEPTED)("%s is accepted as it is", async (file) => {
    const result = await dryRun(file);
    expect(result.stderr).toBe(EXPECTED_WARNINGS[file] ?? "");
    expect(result.stdout).toContain("(server dry run)");
  });

  it("vmi-kernel-boot.yaml is refused at spec.domain.firmware.kernelBoot", async () => {
    const result = await dryRun("vmi-kernel-boot.yaml");
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("spec.domain.firmware.kernelBoot is not supported by kubevirt-ts yet");
  });

  it.each(Object.entries(REFUSED_AS_UPSTREAM))(
    "%s is refused as upstream refuses it",
    async (file, message) => {
      const result = await dryRun(file);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
    },
  );

  it.each(refusedExamples())(
    "%s is refused with a message naming what kubevirt-ts does not do yet",
    async (file) => {
      const result = await dryRun(file);
      expect(result.code, `${file} was accepted:\n${result.stdout}`).not.toBe(0);
      expect(result.stderr).toMatch(CLEAR_REFUSAL);
      expect(result.stderr).not.toMatch(/failed calling webhook|Internal error/);
    },
  );

  it.each(NOT_KUBEVIRT)("%s holds no KubeVirt object and applies", async (file) => {
    const objects = parseAllDocuments(readFileSync(join(EXAMPLES, file), "utf8")).map(
      (d) => d.toJS() as { apiVersion?: string },
    );
    expect(objects.filter((o) => o.apiVersion?.includes("kubevirt.io"))).toEqual([]);
    expect((await dryRun(file)).code).toBe(0);
  });
});

describe("this repo's examples", () => {
  it("examples/vm-demo.yaml, the VM make up starts, is accepted as it is", async () => {
    const result = await kubectl([
      "apply",
      "--dry-run=server",
      "-f",
      join(cluster.repoRoot, "examples/vm-demo.yaml"),
    ]);
    expect(result.stderr).toBe("");
    // "unchanged" where make up already runs it.
    expect(result.stdout).toMatch(
      /^virtualmachine\.kubevirt\.io\/demo (created|unchanged) \(server dry run\)$/m,
    );
  });
});

describe("invalid objects", () => {
  it("are refused with upstream's messages and field paths", async () => {
    const vm = {
      apiVersion: "kubevirt.io/v1",
      kind: "VirtualMachine",
      metadata: { name: "e2e-invalid" },
      spec: {
        runStrategy: "Always",
        running: true,
        template: {
          spec: {
            domain: { devices: { disks: [{ name: "disk0", disk: {} }] }, memory: { guest: "64Mi" } },
            volumes: [],
          },
        },
      },
    };
    const result = await kubectl(["apply", "--dry-run=server", "-f", "-"], { input: JSON.stringify(vm) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "spec.running: Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
    );
    expect(result.stderr).toContain(
      "spec.template.spec.domain.devices.disks[0].name: spec.template.spec.domain.devices.disks[0].Name 'disk0' not found.",
    );
  });
});
