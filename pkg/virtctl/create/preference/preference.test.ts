// `virtctl create preference` against upstream's preference_test.go: the same refusal, and the
// manifests as upstream's sigs.k8s.io/yaml prints them.
import { describe, expect, it } from "vitest";
import { execute } from "../../root.js";
import { testIO } from "../../testing/scripted-apiserver.js";
import { createCommand } from "../create.js";
import { newCreatePreferenceCommand } from "./preference.js";

async function run(...args: string[]) {
  const io = testIO();
  const commands = [{ ...createCommand, subcommands: [newCreatePreferenceCommand(() => "r0000")] }];
  const code = await execute(["create", "preference", ...args], io, "virtctl", commands);
  return { code, stdout: io.output(), stderr: io.errors() };
}

const NAMESPACED = "--namespaced=true";

const manifest = ([kind, name]: readonly [string, string], spec: string[], namespace?: string) =>
  [
    "apiVersion: instancetype.kubevirt.io/v1beta1",
    `kind: ${kind}`,
    "metadata:",
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    ...spec,
    "",
  ].join("\n");

const NAMESPACED_KIND = ["VirtualMachinePreference", "preference-r0000"] as const;
const CLUSTER_KIND = ["VirtualMachineClusterPreference", "clusterpreference-r0000"] as const;

it.each([
  ["VirtualMachinePreference", "invalidCPU", [NAMESPACED]],
  ["VirtualMachineClusterPreference", "clusterInvalidCPU", []],
])("%s: fails with the invalid CPU topology %s", async (_, topology, extra) => {
  expect(await run(`--cpu-topology=${topology}`, ...extra)).toEqual({
    code: 1,
    stdout: "",
    stderr:
      'failed to parse "--cpu-topology" flag: CPU topology must have a value of sockets, cores, threads or spread\n',
  });
});

describe("create preference should succeed", () => {
  it("without flags: a cluster preference with an empty spec", async () => {
    expect(await run()).toEqual({ code: 0, stdout: manifest(CLUSTER_KIND, ["spec: {}"]), stderr: "" });
  });

  it.each([
    [true, NAMESPACED_KIND],
    [false, CLUSTER_KIND],
  ])("with --namespaced=%s", async (namespaced, kind) => {
    expect((await run(`--namespaced=${namespaced}`)).stdout).toBe(manifest(kind, ["spec: {}"]));
  });

  it.each([
    ["testing-storage", [NAMESPACED], NAMESPACED_KIND],
    ["hostpath-provisioner", [], CLUSTER_KIND],
  ])("with the preferred storage class %s", async (storageClass, extra, kind) => {
    expect((await run(`--volume-storage-class=${storageClass}`, ...extra)).stdout).toBe(
      manifest(kind, ["spec:", "  volumes:", `    preferredStorageClassName: ${storageClass}`]),
    );
  });

  it.each([
    ["pc-i440fx-2.10", [NAMESPACED], NAMESPACED_KIND],
    ["pc-q35-2.10", [], CLUSTER_KIND],
  ])("with the machine type %s", async (machineType, extra, kind) => {
    expect((await run(`--machine-type=${machineType}`, ...extra)).stdout).toBe(
      manifest(kind, ["spec:", "  machine:", `    preferredMachineType: ${machineType}`]),
    );
  });

  it.each([
    ["preferCores", [NAMESPACED], NAMESPACED_KIND],
    ["preferThreads", [], CLUSTER_KIND],
    ["spread", [], CLUSTER_KIND],
    ["any", [], CLUSTER_KIND],
  ])("with the CPU topology %s", async (topology, extra, kind) => {
    expect((await run(`--cpu-topology=${topology}`, ...extra)).stdout).toBe(
      manifest(kind, ["spec:", "  cpu:", `    preferredCPUTopology: ${topology}`]),
    );
  });

  it("every flag at once; an empty storage class or machine type prints as an empty struct", async () => {
    const { stdout } = await run(
      "--cpu-topology=sockets",
      "--machine-type=",
      "--volume-storage-class=",
      "--name=p",
    );
    expect(stdout).toBe(
      manifest(
        ["VirtualMachineClusterPreference", "p"],
        ["spec:", "  cpu:", "    preferredCPUTopology: sockets", "  machine: {}", "  volumes: {}"],
      ),
    );
  });
});

it("creates a namespaced object and applies the namespace when one is given with -n", async () => {
  expect((await run("--namespace=my-namespace")).stdout).toBe(
    manifest(NAMESPACED_KIND, ["spec: {}"], "my-namespace"),
  );
});

it("help lists upstream's flags, sorted, with the examples", async () => {
  const { stdout } = await run("--help");
  expect(stdout).toContain(
    "Create a VirtualMachinePreference or VirtualMachineClusterPreference manifest.\n\nUsage:\n" +
      "  virtctl create preference [flags]\n\nExamples:\n" +
      "  # Create a manifest for a ClusterPreference with a random name:\n" +
      "  virtctl create preference\n\t\n",
  );
  expect(stdout).toContain(
    [
      "Flags:",
      "      --cpu-topology string           Defines the preferred guest visible CPU topology.",
      "  -h, --help                          help for preference",
      "      --machine-type string           Defines the preferred machine type to use.",
      "      --name string                   Specify the name of the Preference.",
      "      --namespaced                    Specify if VirtualMachinePreference should be created. By default VirtualMachineClusterPreference is created.",
      "      --volume-storage-class string   Defines the preferred storage class",
      "",
    ].join("\n"),
  );
});
