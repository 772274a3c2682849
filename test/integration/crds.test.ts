import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { definitionOfObject } from "../../pkg/api/parse-object.js";
import { cluster, eventually, kubectl, kubectlOk as run } from "./harness.js";

// The generated CRDs, loaded into the real kube-apiserver: accepted as structural schemas,
// explained like upstream, validating upstream's examples, printing upstream's columns.

const crdDir = join(cluster.repoRoot, "manifests/generated/crds");
const examplesDir = join(cluster.repoRoot, "test/conformance/upstream-examples");
const namespace = "crds-test";

/** Upstream example documents of kubevirt kinds (anything else is not ours to serve). */
function kubevirtExamples(): { label: string; yaml: string }[] {
  return readdirSync(examplesDir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(examplesDir, file), "utf8")).flatMap((doc, i) => {
        const object: unknown = doc.toJS();
        if (object === null || !("definition" in definitionOfObject(object))) return [];
        return [{ label: `${file}#${i}`, yaml: doc.toString() }];
      }),
    );
}

beforeAll(async () => {
  // Server-side apply: the largest CRDs exceed client-side apply's annotation limit, as upstream's do.
  await run(["apply", "--server-side", "--force-conflicts", "-f", crdDir]);
  await run(["wait", "--for", "condition=Established", "--timeout=60s", "-f", crdDir]);
  await run(["create", "namespace", namespace]);
}, 180_000);

afterAll(async () => {
  await kubectl(["delete", "namespace", namespace, "--wait=false"]);
  await kubectl(["delete", "-f", crdDir, "--wait=false"]);
});

describe("generated CRDs on a real apiserver", () => {
  it("are all established", async () => {
    const names = (await run(["get", "crd", "-o", "name"]))
      .split("\n")
      .filter((n) => n.includes("kubevirt.io"));
    expect(names.length).toBe(readdirSync(crdDir).length);
  });

  it("explain fields with upstream's descriptions", async () => {
    // The apiserver publishes a new CRD's OpenAPI a moment after it is Established.
    const text = await eventually(() => run(["explain", "vm.spec.template.spec.domain.cpu.cores"]));
    expect(text).toContain("Cores specifies the number of cores inside the vmi.");
    const vmi = await run(["explain", "vmi.spec.domain.devices"]);
    expect(vmi).toMatch(/disks\s+<\[\]Object>/);
  });

  it("resolve upstream's short names", async () => {
    for (const shortName of [
      "vm",
      "vmi",
      "vmim",
      "vmirs",
      "vmpool",
      "vmsnapshot",
      "vmexport",
      "kv",
      "vmclone",
    ]) {
      expect((await kubectl(["get", shortName, "-n", namespace])).code, shortName).toBe(0);
    }
  });

  it.each(kubevirtExamples().map((e) => [e.label, e.yaml] as const))(
    "accept upstream example %s (server dry run)",
    async (_, yaml) => {
      await run(["apply", "--dry-run=server", "-n", namespace, "-f", "-"], yaml);
    },
  );

  it("refuse an object that breaks the schema, naming the field", async () => {
    const bad = `apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: bad}
spec:
  domain:
    devices:
      disks: [{name: 7}]
`;
    const result = await kubectl(["apply", "--dry-run=server", "-n", namespace, "-f", "-"], { input: bad });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("spec.domain.devices.disks[0].name");
  });

  it("print upstream's columns for a VMI and a VM, with their values", async () => {
    // The VMI CRD has no status subresource (status is written with the object); the VM's has one.
    const vmi = `apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: columns}
spec: {domain: {devices: {}, memory: {guest: 64Mi}}}
status:
  phase: Running
  nodeName: node01
  interfaces: [{name: default, ipAddress: 10.244.1.9}]
  conditions:
  - {type: Ready, status: "True"}
  - {type: LiveMigratable, status: "False"}
  - {type: Paused, status: "True"}
`;
    await run(["create", "-n", namespace, "-f", "-"], vmi);
    const vmiTable = await run(["get", "vmi", "columns", "-n", namespace, "-o", "wide"]);
    expect(tableRows(vmiTable)).toEqual([
      ["NAME", "AGE", "PHASE", "IP", "NODENAME", "READY", "LIVE-MIGRATABLE", "PAUSED"],
      [
        "columns",
        expect.stringMatching(/^\d+s$/),
        "Running",
        "10.244.1.9",
        "node01",
        "True",
        "False",
        "True",
      ],
    ]);
    // Without -o wide, the priority-1 columns stay out, as upstream's `kubectl get vmi` shows.
    expect(tableRows(await run(["get", "vmi", "columns", "-n", namespace]))[0]).toEqual([
      "NAME",
      "AGE",
      "PHASE",
      "IP",
      "NODENAME",
      "READY",
    ]);

    await run(
      ["create", "-n", namespace, "-f", "-"],
      `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: columns}
spec: {runStrategy: Halted, template: {spec: {domain: {devices: {}, memory: {guest: 64Mi}}}}}
`,
    );
    await run([
      "patch",
      "vm",
      "columns",
      "-n",
      namespace,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({
        status: { printableStatus: "Stopped", conditions: [{ type: "Ready", status: "False" }] },
      }),
    ]);
    expect(tableRows(await run(["get", "vm", "columns", "-n", namespace]))).toEqual([
      ["NAME", "AGE", "STATUS", "READY"],
      ["columns", expect.stringMatching(/^\d+s$/), "Stopped", "False"],
    ]);
  });
});

/** kubectl's table output as cells (columns are separated by two or more spaces). */
function tableRows(table: string): string[][] {
  return table
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
}
