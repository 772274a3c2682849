// `virtctl create instancetype` against upstream's instancetype_test.go: the same refusals, and the
// manifests as upstream's sigs.k8s.io/yaml prints them.
import { describe, expect, it } from "vitest";
import { execute } from "../../root.js";
import { testIO } from "../../testing/scripted-apiserver.js";
import { createCommand } from "../create.js";
import { newCreateInstancetypeCommand } from "./instancetype.js";

async function run(...args: string[]) {
  const io = testIO();
  const commands = [{ ...createCommand, subcommands: [newCreateInstancetypeCommand(() => "r0000")] }];
  const code = await execute(["create", "instancetype", ...args], io, "virtctl", commands);
  return { code, stdout: io.output(), stderr: io.errors() };
}

const NAMESPACED = "--namespaced=true";
const USAGE_HINT = "\nRun 'virtctl create instancetype --help' for usage.\n";

const manifest = (kind: string, name: string, spec: string[], namespace?: string) =>
  [
    "apiVersion: instancetype.kubevirt.io/v1beta1",
    `kind: ${kind}`,
    "metadata:",
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    "spec:",
    ...spec,
    "",
  ].join("\n");

const KINDS: [string, string[], string, string][] = [
  ["VirtualMachineInstancetype", [NAMESPACED], "VirtualMachineInstancetype", "instancetype-r0000"],
  ["VirtualMachineClusterInstancetype", [], "VirtualMachineClusterInstancetype", "clusterinstancetype-r0000"],
];

describe("create instancetype should fail", () => {
  it.each(KINDS)("%s: because of required cpu and memory", async (_, extra) => {
    expect(await run(...extra)).toEqual({
      code: 1,
      stdout: "",
      stderr: 'required flag(s) "cpu", "memory" not set\n',
    });
    expect((await run("--memory=1Gi", ...extra)).stderr).toBe('required flag(s) "cpu" not set\n');
  });

  it.each(KINDS.flatMap(([label, extra]): [string, string, string, string, string[]][] => [
    [label, "two", "256Mi", `invalid argument "two" for "--cpu" flag: strconv.ParseUint: parsing "two": invalid syntax${USAGE_HINT}`, extra],
    [label, "-2", "256Mi", `invalid argument "-2" for "--cpu" flag: strconv.ParseUint: parsing "-2": invalid syntax${USAGE_HINT}`, extra],
    [label, "4294967296", "256Mi", `invalid argument "4294967296" for "--cpu" flag: strconv.ParseUint: parsing "4294967296": value out of range${USAGE_HINT}`, extra],
    [label, "2", "256My", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n", extra],
    [label, "0", "256Mi", "cpu value must be greater than zero\n", extra],
  ]))("%s: invalid cpu %s and memory %s", async (_, cpu, memory, stderr, extra) => {
    expect(await run(`--cpu=${cpu}`, `--memory=${memory}`, ...extra)).toEqual({ code: 1, stdout: "", stderr });
  }); // prettier-ignore

  const invalid: [string, string, string][] = [
    ["gpu missing name", "--gpu=devicename:nvidia", 'failed to parse "--gpu" flag: name must be specified'],
    [
      "gpu missing deviceName",
      "--gpu=name:gpu1",
      'failed to parse "--gpu" flag: deviceName must be specified',
    ],
    [
      "hostdevice missing name",
      "--hostdevice=devicename:intel",
      'failed to parse "--hostdevice" flag: name must be specified',
    ],
    [
      "hostdevice missing deviceName",
      "--hostdevice=name:device1",
      'failed to parse "--hostdevice" flag: deviceName must be specified',
    ],
    [
      "invalid IOThreadsPolicy",
      "--iothreadspolicy=invalid-policy",
      'failed to parse "--iothreadspolicy" flag: IOThread must be of value auto or shared',
    ],
    [
      "gpu unknown param",
      "--gpu=name:a,devicename:b,tag:c",
      'failed to parse "--gpu" flag: unknown param(s): tag:c',
    ],
  ];
  it.each(
    KINDS.flatMap(([label, extra]) =>
      invalid.map(([what, arg, error]): [string, string, string, string, string[]] => [
        label,
        what,
        arg,
        error,
        extra,
      ]),
    ),
  )("%s: %s", async (_label, _what, arg, error, extra) => {
    expect(await run("--cpu=1", "--memory=128Mi", arg, ...extra)).toEqual({
      code: 1,
      stdout: "",
      stderr: `${error}\n`,
    });
  });
});

describe("create instancetype should succeed", () => {
  it.each(KINDS)("%s: with defined cpu and memory", async (_, extra, kind, name) => {
    expect(await run("--cpu=2", "--memory=256Mi", ...extra)).toEqual({
      code: 0,
      stdout: manifest(kind, name, ["  cpu:", "    guest: 2", "  memory:", "    guest: 256Mi"]),
      stderr: "",
    });
  });

  it.each(KINDS)(
    "%s: with defined gpus and hostDevices, in the order given",
    async (_, extra, kind, name) => {
      const { stdout } = await run(
        "--cpu=1",
        "--memory=128Mi",
        "--gpu=name:gpu1,devicename:nvidia",
        "--hostdevice=name:device1,devicename:intel",
        "--gpu=devicename:amd,name:gpu2",
        ...extra,
      );
      expect(stdout).toBe(
        manifest(kind, name, [
          "  cpu:",
          "    guest: 1",
          "  gpus:",
          "  - deviceName: nvidia",
          "    name: gpu1",
          "  - deviceName: amd",
          "    name: gpu2",
          "  hostDevices:",
          "  - deviceName: intel",
          "    name: device1",
          "  memory:",
          "    guest: 128Mi",
        ]),
      );
    },
  );

  it.each(KINDS.flatMap(([label, extra, kind, name]) => ["auto", "shared"].map((policy) => [label, policy, extra, kind, name])))(
    "%s: with valid IOThreadsPolicy %s",
    async (_, policy, extra, kind, name) => {
      const { stdout } = await run("--cpu=1", "--memory=128Mi", `--iothreadspolicy=${policy}`, ...(extra as string[]));
      expect(stdout).toBe(
        manifest(kind as string, name as string, [
          "  cpu:",
          "    guest: 1",
          `  ioThreadsPolicy: ${policy}`,
          "  memory:",
          "    guest: 128Mi",
        ]),
      );
    },
  ); // prettier-ignore

  it("the cpu count reads as pflag's uint32 (any base), the memory in its canonical form", async () => {
    const { stdout } = await run("--cpu=0x10", "--memory=1024Mi", "--name=big");
    expect(stdout).toBe(
      manifest("VirtualMachineClusterInstancetype", "big", [
        "  cpu:",
        "    guest: 16",
        "  memory:",
        "    guest: 1Gi",
      ]),
    );
  });

  it("--namespaced=false keeps the cluster kind, and an empty --name leaves the name out", async () => {
    const { stdout } = await run("--cpu=1", "--memory=1Gi", "--namespaced=false", "--name=");
    expect(stdout).toMatch(/^apiVersion: instancetype\.kubevirt\.io\/v1beta1\nkind: VirtualMachineClusterInstancetype\nmetadata: \{\}\n/);
  }); // prettier-ignore
});

it("creates a namespaced object and applies the namespace when one is given with -n", async () => {
  const { stdout } = await run("--cpu=1", "--memory=128Mi", "--namespace=my-namespace");
  expect(stdout).toBe(
    manifest(
      "VirtualMachineInstancetype",
      "instancetype-r0000",
      ["  cpu:", "    guest: 1", "  memory:", "    guest: 128Mi"],
      "my-namespace",
    ),
  );
});

it("help lists upstream's flags, sorted, with the examples", async () => {
  const { stdout } = await run("--help");
  expect(stdout).toContain(
    "Create VirtualMachineInstancetype or VirtualMachineClusterInstancetype manifest.\n\nUsage:\n" +
      "  virtctl create instancetype [flags]\n\nExamples:\n" +
      "  # Create a manifest for a ClusterInstancetype with a random name:\n" +
      "  virtctl create instancetype --cpu 2 --memory 256Mi\n  \n",
  );
  expect(stdout).toContain(
    [
      "Flags:",
      "      --cpu uint32               Specify the count of CPUs of the Instancetype.",
      "      --gpu stringArray          Specify the list of vGPUs to passthrough. Can be provided multiple times.",
      "  -h, --help                     help for instancetype",
      "      --hostdevice stringArray   Specify list of HostDevices to passthrough. Can be provided multiple times.",
      '      --iothreadspolicy string   Specify IOThreadsPolicy to be used. Only valid values are "auto" and "shared".',
      "      --memory string            Specify the amount of memory of the Instancetype.",
      "      --name string              Specify the name of the Instancetype.",
      "      --namespaced               Specify if VirtualMachineInstancetype should be created. By default VirtualMachineClusterInstancetype is created.",
      "",
    ].join("\n"),
  );
});
