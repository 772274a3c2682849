// Quantities written as YAML numbers (`cpu: 0.5`) reach the apiserver as JSON numbers. Upstream's
// mutating webhooks send the spec back re-encoded from Go types, so the CRD schema only ever sees
// canonical strings and the objects are stored as upstream stores them (`500m`); the VM then runs.
import { afterAll, describe, expect, it } from "vitest";
import { applyYAML, eventually, jsonpath, kubectl, kubectlOk } from "./harness.js";

const BOOT_TIMEOUT_MS = 240_000;
const NAME = "e2e-numeric-quantities";

/** The domain section with unquoted numbers, as a user writes it. */
const domain = `
      domain:
        resources:
          requests:
            cpu: 0.5
            memory: 2222222.2
          limits:
            cpu: 2
        memory:
          guest: 128Mi
        devices:
          disks:
            - name: containerdisk
              disk: { bus: virtio }
            - name: scratch
              disk: { bus: virtio }
`;
const volumes = `
      volumes:
        - name: containerdisk
          containerDisk:
            image: kubevirt-ts/test-guest:latest
        - name: scratch
          emptyDisk:
            capacity: 1073741824
`;

const vmYAML = `
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: ${NAME}
spec:
  runStrategy: Always
  template:
    spec:
      terminationGracePeriodSeconds: 5
${domain}${volumes}`;

/** The same, as a VMI: the section indented two levels less. */
const vmiYAML = `
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata:
  name: ${NAME}-vmi
spec:
${(domain + volumes).replace(/^ {4}/gm, "")}`;

/** What upstream stores (apimachinery's Quantity.MarshalJSON of each number). */
const CANONICAL = {
  resources: { requests: { cpu: "500m", memory: "2222222200m" }, limits: { cpu: "2" } },
  capacity: "1073741824",
};

interface StoredSpec {
  domain: { resources: unknown };
  volumes: { name: string; emptyDisk?: { capacity: unknown } }[];
}

function storedQuantities(spec: StoredSpec) {
  return {
    resources: spec.domain.resources,
    capacity: spec.volumes.find((volume) => volume.name === "scratch")?.emptyDisk?.capacity,
  };
}

afterAll(async () => {
  await kubectl(["delete", "vm", NAME, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("numeric quantities", () => {
  it("a VMI with them is accepted and would be stored with upstream's canonical strings", async () => {
    const out = await kubectlOk(["create", "--dry-run=server", "-o", "json", "-f", "-"], vmiYAML);
    const vmi = JSON.parse(out) as { spec: StoredSpec };
    expect(storedQuantities(vmi.spec)).toEqual(CANONICAL);
  });

  it("a VM with them is stored with upstream's canonical strings, and runs", async () => {
    await applyYAML(vmYAML);
    const vm = JSON.parse(await kubectlOk(["get", "vm", NAME, "-o", "json"])) as {
      spec: { template: { spec: StoredSpec } };
    };
    expect(storedQuantities(vm.spec.template.spec)).toEqual(CANONICAL);

    await eventually(
      async () => expect(await jsonpath("vmi", NAME, "{.status.phase}")).toBe("Running"),
      BOOT_TIMEOUT_MS,
      1_000,
    );
    const vmi = JSON.parse(await kubectlOk(["get", "vmi", NAME, "-o", "json"])) as { spec: StoredSpec };
    expect(storedQuantities(vmi.spec)).toEqual(CANONICAL);
  });
});
