import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BenchError } from "./bench-error.js";
import {
  OWNER_LABEL,
  deleteAndWait,
  ensureNamespace,
  existsAsOwned,
  kubectlStep,
  ownedManifest,
  vmObject,
} from "./bench-objects.js";
import { lastLine } from "./kubectl.js";
import { FakeKubectl } from "./testing/fake-kubectl.js";

let kubectl: FakeKubectl;

beforeEach(async () => {
  kubectl = await FakeKubectl.create();
});

afterEach(async () => {
  await kubectl.remove();
});

const labelled = (labels: Record<string, string>) => JSON.stringify({ metadata: { name: "x", labels } });

describe("the benchmark's objects", () => {
  it("creates its namespace, labelled as its own, when it is missing", async () => {
    expect(await ensureNamespace(kubectl, "bench-x", "vmi-burst")).toBe(true);
    const calls = await kubectl.calls();
    expect(calls.map((call) => call.args)).toEqual([
      ["get", "namespace", "bench-x", "--ignore-not-found", "-o", "json"],
      ["create", "-f", "-"],
    ]);
    expect(JSON.parse(calls[1]!.stdin)).toEqual({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "bench-x", labels: { [OWNER_LABEL]: "vmi-burst" } },
    });
  });

  it("uses its own namespace as it is, and refuses another's", async () => {
    await kubectl.answer([{ when: ["get"], stdout: labelled({ [OWNER_LABEL]: "vmi-burst" }) }]);
    expect(await ensureNamespace(kubectl, "bench-x", "vmi-burst")).toBe(false);
    expect((await kubectl.calls()).map((call) => call.args[0])).toEqual(["get"]);
    await expect(ensureNamespace(kubectl, "bench-x", "vm-boot")).rejects.toThrow(
      "namespace bench-x exists and is not the benchmark's: name another with --namespace",
    );
  });

  it("says the cluster is not up when its files are missing, before asking kubectl", async () => {
    const missing = { kubectl: kubectl.kubectl, kubeconfig: `${kubectl.dir}/nope` };
    await expect(ensureNamespace(missing, "bench-x", "vmi-burst")).rejects.toThrow(
      /the cluster is not up: no kubeconfig at .*nope; start the cluster with make up/,
    );
    expect(await kubectl.calls()).toEqual([]);
  });

  it("finds an object without labels as not the benchmark's", async () => {
    await kubectl.answer([{ when: ["get"], stdout: JSON.stringify({ metadata: { name: "vm" } }) }]);
    const vm = vmObject("default", "vm");
    await expect(existsAsOwned(kubectl, vm, { owner: "migration", option: "--vm" })).rejects.toThrow(
      "VM default/vm exists and is not the benchmark's: name another with --vm",
    );
    expect((await kubectl.calls())[0]!.args).toEqual([
      "-n",
      "default",
      "get",
      "virtualmachines.kubevirt.io",
      "vm",
      "--ignore-not-found",
      "-o",
      "json",
    ]);
  });

  it("says what it was doing when kubectl fails, with kubectl's last word, which lastLine still finds", async () => {
    await kubectl.answer([{ when: ["get"], stderr: "some detail\nerror: the server is down\n", code: 1 }]);
    const failure = await existsAsOwned(
      kubectl,
      vmObject("ns", "vm"),
      { owner: "migration", option: "--vm" },
      "; is KubeVirt installed (make up)?",
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BenchError);
    expect((failure as Error).message).toBe(
      "reading VM ns/vm: error: the server is down; is KubeVirt installed (make up)?",
    );
    const step = await kubectlStep(kubectl, "listing pods", ["get", "pods"]).catch((error: unknown) => error);
    expect((step as Error).message).toBe("listing pods: error: the server is down");
    expect(lastLine(step)).toBe("error: the server is down");
  });

  it("deletes one object or a labelled set and waits, bounded by kubectl's --timeout alone", async () => {
    await deleteAndWait(kubectl, vmObject("ns", "vm"), 120_000);
    await deleteAndWait(
      kubectl,
      { resource: "virtualmachineinstances.kubevirt.io", namespace: "ns", selector: "a=b", what: "VMIs" },
      90_500,
    );
    expect((await kubectl.calls()).map((call) => call.args)).toEqual([
      [
        "-n",
        "ns",
        "delete",
        "virtualmachines.kubevirt.io",
        "vm",
        "--ignore-not-found",
        "--wait=true",
        "--timeout=120s",
      ],
      [
        ...["-n", "ns", "delete", "virtualmachineinstances.kubevirt.io", "-l", "a=b"],
        ...["--ignore-not-found", "--wait=true", "--timeout=91s"],
      ],
    ]);
    expect(await kubectl.requestTimeouts()).toEqual(["--request-timeout=0", "--request-timeout=0"]);
  });

  it("labels a manifest as the benchmark's, in its namespace", () => {
    const vm = { kind: "VirtualMachine", metadata: { name: "vm", labels: { other: "x" } }, spec: {} };
    expect(ownedManifest(vm, "vm-boot", "ns")).toEqual({
      kind: "VirtualMachine",
      metadata: { name: "vm", namespace: "ns", labels: { [OWNER_LABEL]: "vm-boot" } },
      spec: {},
    });
    expect(ownedManifest(vm, "vm-boot").metadata).not.toHaveProperty("namespace");
  });
});
