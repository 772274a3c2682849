// VirtualMachinePools end to end, from upstream's own example applied unchanged: three VMs named
// vm-pool-cirros-0..2, each running its cirros VMI; `kubectl get vmpool` shows upstream's columns;
// `kubectl scale vmpool` moves the count through the scale subresource, the lowest indexes staying (the
// test asks for DescendingOrder: upstream's default scale-in order is random) and coming back; a deleted
// VM is replaced under its name; a paused pool is left alone until it resumes.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyYAML, cluster, conditionOf, eventually, jsonpath, kubectl, kubectlOk } from "./harness.js";

const EXAMPLE = join(cluster.repoRoot, "test/conformance/upstream-examples/vm-pool-cirros.yaml");
const POOL = "vm-pool-cirros";
const SELECTOR = `kubevirt.io/vmpool=${POOL}`;
const BOOT_TIMEOUT_MS = 300_000;

/** `name=value` lines of a jsonpath over the pool's VMs or VMIs, as a map. */
async function byName(kind: "vms" | "vmis", value: string): Promise<Map<string, string>> {
  const out = await kubectlOk([
    "get",
    kind,
    "-l",
    SELECTOR,
    "-o",
    `jsonpath={range .items[*]}{.metadata.name}={${value}}{"\\n"}{end}`,
  ]);
  return new Map(
    out
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => line.split("=") as [string, string]),
  );
}

/** Waits until exactly the VMs `names` exist, none going away, each with a Running VMI; answers VMI uids. */
async function runningVMs(names: string[]): Promise<Map<string, string>> {
  return eventually(
    async () => {
      const vms = await byName("vms", ".metadata.deletionTimestamp");
      expect([...vms.keys()].sort()).toEqual(names);
      expect([...vms.values()].every((deleting) => deleting === "")).toBe(true);
      const phases = await byName("vmis", ".status.phase");
      expect([...phases.keys()].sort()).toEqual(names);
      expect([...phases.values()]).toEqual(Array<string>(names.length).fill("Running"));
      return byName("vmis", ".metadata.uid");
    },
    BOOT_TIMEOUT_MS,
    2_000,
  );
}

const names = (...indexes: number[]) => indexes.map((index) => `${POOL}-${index}`);

/** `kubectl get vmpool` as a user reads it: DESIRED CURRENT READY. */
async function columns(): Promise<string[]> {
  const table = await kubectlOk(["get", "vmpool", POOL]);
  const [header = "", row = ""] = table.trim().split("\n");
  expect(header.split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
  return row.split(/\s+/).slice(1, 4);
}

const scale = (replicas: number) => kubectl(["scale", "vmpool", POOL, `--replicas=${replicas}`]);
const patchSpec = (spec: object) =>
  kubectlOk(["patch", "vmpool", POOL, "--type=merge", "-p", JSON.stringify({ spec })]);

beforeAll(async () => {
  await applyYAML(await readFile(EXAMPLE, "utf8"));
}, 60_000);

afterAll(async () => {
  await kubectl(["delete", "vmpool", POOL, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  await kubectl(["delete", "vms", "-l", SELECTOR, "--wait=true", "--timeout=120s"]);
  await kubectl(["delete", "vmis", "-l", SELECTOR, "--wait=true", "--timeout=120s"]);
});

describe("VirtualMachinePool", () => {
  it(
    "runs the VMs the example asks for, named by index, and reports them in kubectl's columns",
    async () => {
      await runningVMs(names(0, 1, 2));
      for (const name of names(0, 1, 2)) {
        expect(await jsonpath("vm", name, "{.metadata.ownerReferences[0].kind}")).toBe("VirtualMachinePool");
        expect(await jsonpath("vm", name, "{.metadata.labels.kubevirt\\.io/vm-pool-revision-name}")).toMatch(
          new RegExp(`^${POOL}-\\d+$`),
        );
      }
      await eventually(async () => expect(await columns()).toEqual(["3", "3", "3"]), 120_000, 2_000);
      expect(await jsonpath("vmpool", POOL, "{.status.labelSelector}")).toBe(SELECTOR);
    },
    BOOT_TIMEOUT_MS + 120_000,
  );

  it(
    "replaces a deleted VM under the same name",
    async () => {
      const before = await byName("vmis", ".metadata.uid");
      const vmUID = await jsonpath("vm", `${POOL}-1`, "{.metadata.uid}");
      await kubectlOk(["delete", "vm", `${POOL}-1`, "--wait=false"]);
      await eventually(
        async () => {
          const uid = await jsonpath("vm", `${POOL}-1`, "{.metadata.uid}");
          expect(uid).not.toBe("");
          expect(uid).not.toBe(vmUID);
        },
        120_000,
        1_000,
      );
      const after = await runningVMs(names(0, 1, 2));
      expect(after.get(`${POOL}-0`)).toBe(before.get(`${POOL}-0`));
      expect(after.get(`${POOL}-1`)).not.toBe(before.get(`${POOL}-1`));
    },
    BOOT_TIMEOUT_MS + 120_000,
  );

  it(
    "follows kubectl scale down and up: the lowest indexes stay, the freed ones come back",
    async () => {
      const before = await byName("vmis", ".metadata.uid");
      await patchSpec({
        scaleInStrategy: { proactive: { selectionPolicy: { sortPolicy: "DescendingOrder" } } },
      });
      const scaled = await scale(1);
      expect(scaled.stdout.trim()).toBe(`virtualmachinepool.pool.kubevirt.io/${POOL} scaled`);
      const one = await runningVMs(names(0));
      expect(one.get(`${POOL}-0`)).toBe(before.get(`${POOL}-0`));
      await eventually(async () => expect(await columns()).toEqual(["1", "1", "1"]), 60_000, 1_000);

      expect((await scale(3)).code).toBe(0);
      const three = await runningVMs(names(0, 1, 2));
      expect(three.get(`${POOL}-0`)).toBe(before.get(`${POOL}-0`));
      await eventually(async () => expect(await columns()).toEqual(["3", "3", "3"]), 120_000, 2_000);
    },
    2 * BOOT_TIMEOUT_MS,
  );

  it(
    "leaves a paused pool alone until it resumes",
    async () => {
      await scale(1);
      await runningVMs(names(0));
      await patchSpec({ paused: true });
      await eventually(
        async () => expect(await conditionOf("vmpool", POOL, "ReplicaPaused")).toBe("True/SuccessfulPaused"),
        60_000,
        1_000,
      );
      await scale(2);
      // A running controller would have created the VM within seconds.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect([...(await byName("vms", ".metadata.name")).keys()]).toEqual(names(0));

      await patchSpec({ paused: false });
      await eventually(
        async () => expect(await conditionOf("vmpool", POOL, "ReplicaPaused")).toBe("/"),
        60_000,
        1_000,
      );
      await runningVMs(names(0, 1));
    },
    BOOT_TIMEOUT_MS + 120_000,
  );
});
