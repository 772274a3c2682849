// VirtualMachineInstanceReplicaSets end to end, from upstream's own example applied unchanged: three
// running cirros VMIs; a deleted one is replaced; `kubectl scale` through the scale subresource moves the
// count; a paused replica set is left alone until it resumes. `kubectl get vmirs` shows upstream's columns.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyYAML, cluster, conditionOf, eventually, jsonpath, kubectl, kubectlOk } from "./harness.js";

const EXAMPLE = join(cluster.repoRoot, "test/conformance/upstream-examples/vmi-replicaset-cirros.yaml");
const RS = "vmi-replicaset-cirros";
const BOOT_TIMEOUT_MS = 300_000;

/** The replica set's VMIs, by name, with their phases. */
async function vmis(): Promise<Map<string, string>> {
  const out = await kubectlOk([
    "get",
    "vmis",
    "-l",
    `kubevirt.io/vmReplicaSet=${RS}`,
    "-o",
    'jsonpath={range .items[*]}{.metadata.name}={.status.phase}{"\\n"}{end}',
  ]);
  return new Map(
    out
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => line.split("=") as [string, string]),
  );
}

/** Waits until exactly `count` VMIs of the replica set exist, none going away, all Running. */
async function runningReplicas(count: number): Promise<string[]> {
  return eventually(
    async () => {
      const now = await vmis();
      expect([...now.values()]).toEqual(Array<string>(count).fill("Running"));
      const terminating = await kubectlOk([
        "get",
        "vmis",
        "-l",
        `kubevirt.io/vmReplicaSet=${RS}`,
        "-o",
        "jsonpath={.items[?(@.metadata.deletionTimestamp)].metadata.name}",
      ]);
      expect(terminating.trim()).toBe("");
      return [...now.keys()];
    },
    BOOT_TIMEOUT_MS,
    2_000,
  );
}

/** `kubectl get vmirs` as a user reads it: DESIRED CURRENT READY. */
async function columns(): Promise<string[]> {
  const table = await kubectlOk(["get", "vmirs", RS]);
  const [header = "", row = ""] = table.trim().split("\n");
  expect(header.split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
  return row.split(/\s+/).slice(1, 4);
}

beforeAll(async () => {
  await applyYAML(await readFile(EXAMPLE, "utf8"));
}, 60_000);

afterAll(async () => {
  await kubectl(["delete", "vmirs", RS, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  await kubectl(["delete", "vmis", "-l", `kubevirt.io/vmReplicaSet=${RS}`, "--wait=true", "--timeout=120s"]);
});

describe("VirtualMachineInstanceReplicaSet", () => {
  it(
    "runs exactly the replicas the example asks for, and reports them in kubectl's columns",
    async () => {
      const names = await runningReplicas(3);
      for (const name of names) expect(name).toMatch(new RegExp(`^${RS}[a-z0-9]{5}$`));
      await eventually(async () => expect(await columns()).toEqual(["3", "3", "3"]), 60_000, 1_000);
      expect(await jsonpath("vmirs", RS, "{.status.labelSelector}")).toBe(`kubevirt.io/vmReplicaSet=${RS}`);
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  it(
    "replaces a deleted VMI with a new one",
    async () => {
      const [victim = "", ...others] = [...(await vmis()).keys()];
      await kubectlOk(["delete", "vmi", victim, "--wait=false"]);
      const after = await runningReplicas(3);
      expect(after).not.toContain(victim);
      for (const other of others) expect(after).toContain(other);
    },
    BOOT_TIMEOUT_MS + 60_000,
  );

  it(
    "follows kubectl scale down, and leaves a paused replica set alone until it resumes",
    async () => {
      const scaled = await kubectl(["scale", "vmirs", RS, "--replicas=1"]);
      expect(scaled.stdout.trim()).toBe(`virtualmachineinstancereplicaset.kubevirt.io/${RS} scaled`);
      await runningReplicas(1);
      await eventually(async () => expect(await columns()).toEqual(["1", "1", "1"]), 60_000, 1_000);

      await kubectlOk(["patch", "vmirs", RS, "--type=merge", "-p", '{"spec":{"paused":true}}']);
      await eventually(
        async () => expect(await conditionOf("vmirs", RS, "ReplicaPaused")).toBe("True/Paused"),
        60_000,
        1_000,
      );
      await kubectlOk(["scale", "vmirs", RS, "--replicas=2"]);
      // A running controller would have created the VMI within seconds.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect((await vmis()).size).toBe(1);

      await kubectlOk(["patch", "vmirs", RS, "--type=merge", "-p", '{"spec":{"paused":false}}']);
      await eventually(
        async () => expect(await conditionOf("vmirs", RS, "ReplicaPaused")).toBe("/"),
        60_000,
        1_000,
      );
      await runningReplicas(2);
    },
    BOOT_TIMEOUT_MS + 120_000,
  );
});
