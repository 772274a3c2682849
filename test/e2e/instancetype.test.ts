// Instance types and preferences end to end: the operator deploys upstream's common cluster instance
// types and preferences (`kubectl get vmcf,vmcp`); a VM that names `u1.small` and the `cirros` preference
// runs with the instance type's CPU and memory (in the VMI and in the domain QEMU runs), its revisions
// recorded in the VM's status; `virtctl expand` prints the VM with both written in; a VM that also sets
// `domain.cpu` is refused with upstream's message.
import { afterAll, describe, expect, it } from "vitest";
import {
  applyObject,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  runningLauncher,
  virtctl,
} from "./harness.js";
import { TEST_GUEST_IMAGE } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 300_000;
const VM = "e2e-instancetype";

const vm = (name: string, domain: object = {}) => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachine",
  metadata: { name },
  spec: {
    runStrategy: "Always",
    instancetype: { kind: "VirtualMachineClusterInstancetype", name: "u1.small" },
    preference: { name: "cirros" },
    template: {
      spec: {
        domain: { devices: {}, ...domain },
        terminationGracePeriodSeconds: 5,
        volumes: [{ name: "containerdisk", containerDisk: { image: TEST_GUEST_IMAGE } }],
      },
    },
  },
});

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("instance types and preferences", () => {
  it("are deployed by the operator as upstream's common ones", async () => {
    await eventually(
      async () => {
        const listed = await kubectlOk(["get", "vmcf,vmcp", "-o", "name"]);
        expect(listed).toContain("virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.small\n");
        expect(listed).toContain("virtualmachineclusterpreference.instancetype.kubevirt.io/cirros\n");
      },
      120_000,
      2_000,
    );
    expect(await jsonpath("vmcf", "u1.small", "{.spec.cpu.guest} {.spec.memory.guest}")).toBe("1 2Gi");
    expect(await jsonpath("vmcf", "u1.small", "{.metadata.labels.app\\.kubernetes\\.io/managed-by}")).toBe(
      "virt-operator",
    );
  }, 180_000);

  it(
    "run a VM with the instance type's CPU and memory, and virtctl expand writes them in",
    async () => {
      await applyObject(vm(VM));
      const launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS);
      expect(await jsonpath("vmi", VM, "{.spec.domain.cpu.sockets} {.spec.domain.memory.guest}")).toBe(
        "1 2Gi",
      );
      expect(await jsonpath("vm", VM, "{.status.instancetypeRef.controllerRevisionRef.name}")).toMatch(
        new RegExp(`^${VM}-u1\\.small-`),
      );
      const dominfo = await kubectlOk(["exec", launcher, "-c", "compute", "--", "virsh", "dominfo", "1"]);
      expect(dominfo).toMatch(/^CPU\(s\):\s+1$/m);
      expect(dominfo).toMatch(/^Max memory:\s+2097152 KiB$/m);

      const expanded = await virtctl(["expand", "--vm", VM, "--output", "json"]);
      expect(expanded.stderr).toBe("");
      const spec = (JSON.parse(expanded.stdout) as { spec: Record<string, unknown> }).spec as {
        instancetype?: unknown;
        preference?: unknown;
        template: { spec: { domain: { cpu?: { sockets?: number }; memory?: { guest?: string } } } };
      };
      expect(spec.instancetype).toBeUndefined();
      expect(spec.preference).toBeUndefined();
      expect(spec.template.spec.domain.memory?.guest).toBe("2Gi");
      expect(spec.template.spec.domain.cpu?.sockets).toBe(1);
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  it("refuse a VM that sets domain.cpu as well, with upstream's message", async () => {
    const result = await kubectl(["apply", "--dry-run=server", "-f", "-"], {
      input: JSON.stringify(vm(`${VM}-cpu`, { cpu: { sockets: 2 } })),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "VM field(s) spec.template.spec.domain.cpu.sockets conflicts with selected instance type",
    );
  }, 60_000);

  it("are inferred from the labels of the boot volume's claim, or refused with upstream's message", async () => {
    const claim = `${VM}-infer-root`;
    await applyObject({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: claim,
        labels: {
          "instancetype.kubevirt.io/default-instancetype": "u1.small",
          "instancetype.kubevirt.io/default-instancetype-kind": "VirtualMachineClusterInstancetype",
          "instancetype.kubevirt.io/default-preference": "cirros",
        },
      },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "16Mi" } } },
    });
    try {
      const inferring = (claimName: string) => {
        const object = vm(`${VM}-infer`);
        object.spec.instancetype = { inferFromVolume: "root" } as never;
        object.spec.preference = { inferFromVolume: "root" } as never;
        object.spec.template.spec.volumes = [{ name: "root", persistentVolumeClaim: { claimName } } as never];
        return JSON.stringify(object);
      };
      const stored = await kubectlOk(
        ["create", "--dry-run=server", "-o", "json", "-f", "-"],
        inferring(claim),
      );
      const spec = (JSON.parse(stored) as { spec: Record<string, unknown> }).spec;
      expect(spec["instancetype"]).toMatchObject({
        kind: "VirtualMachineClusterInstancetype",
        name: "u1.small",
      });
      expect(spec["preference"]).toMatchObject({ name: "cirros" });
      expect(JSON.stringify(spec)).not.toContain("inferFromVolume");

      const refused = await kubectl(["create", "--dry-run=server", "-f", "-"], {
        input: inferring(`${claim}-missing`),
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`persistentvolumeclaims "${claim}-missing" not found`);
    } finally {
      await kubectl(["delete", "pvc", claim, "--ignore-not-found"]);
    }
  }, 60_000);
});
