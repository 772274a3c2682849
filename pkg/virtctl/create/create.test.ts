// The create parent as upstream's cobra command behaves: usage on its own or with an unknown word,
// help for itself and its subcommands, the unported clone generator refused by name.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { testIO } from "../testing/scripted-apiserver.js";

async function run(argv: string[], programName = "virtctl") {
  const io = testIO();
  const code = await execute(argv, io, programName);
  return { code, stdout: io.output(), stderr: io.errors() };
}

const USAGE = (program: string) =>
  [
    "Usage:",
    `  ${program} create [flags]`,
    `  ${program} create [command]`,
    "",
    "Available Commands:",
    "  instancetype Create VirtualMachineInstancetype or VirtualMachineClusterInstancetype manifest.",
    "  preference   Create a VirtualMachinePreference or VirtualMachineClusterPreference manifest.",
    "  vm           Create a VirtualMachine manifest.",
    "",
    "Flags:",
    "  -h, --help   help for create",
    "",
    `Use "${program} options" for a list of global command-line options (applies to all commands).`,
    "",
  ].join("\n");

describe("virtctl create", () => {
  it.each([[["create"]], [["create", "bogus"]], [["-n", "ns", "create"]]])(
    "%j prints its usage",
    async (argv) => {
      expect(await run(argv)).toEqual({ code: 0, stdout: USAGE("virtctl"), stderr: "" });
    },
  );

  it.each([[["create", "--help"]], [["help", "create"]]])(
    "%j starts with the short description",
    async (argv) => {
      expect((await run(argv, "kubectl virt")).stdout).toBe(
        `Create a manifest for the specified Kind.\n\n${USAGE("kubectl virt")}`,
      );
    },
  );

  it.each([[["create", "vm", "--help"]], [["help", "create", "vm"]], [["create", "-h", "vm"]]])(
    "%j shows the vm usage under its full path, flags in upstream's order",
    async (argv) => {
      const { stdout } = await run(argv);
      expect(stdout).toMatch(
        /^Create a VirtualMachine manifest\.\n\nIf no boot order was specified volumes have the following fixed boot order:\nContainerdisk > PVC > DataSource > Clone PVC > Blank > Imported volumes\n\nUsage:\n {2}virtctl create vm \[flags\]\n\nExamples:\n {2}# Create a manifest for a VirtualMachine with a random name:\n {2}virtctl create vm\n/,
      );
      const flags = stdout
        .slice(stdout.indexOf("Flags:\n"))
        .split("\n")
        .filter((line) => /^ {2}(-h, )?( {4})?--/.test(line));
      expect(flags.map((line) => /--(\S+)/.exec(line)?.[1])).toEqual([
        "name",
        "run-strategy",
        "termination-grace-period",
        "memory",
        "instancetype",
        "infer-instancetype",
        "infer-instancetype-from",
        "preference",
        "infer-preference",
        "infer-preference-from",
        "volume-containerdisk",
        "volume-pvc",
        "volume-import",
        "volume-sysprep",
        "user",
        "password-file",
        "ssh-key",
        "ga-manage-ssh",
        "access-cred",
        "cloud-init",
        "cloud-init-user-data",
        "cloud-init-network-data",
        "volume-datasource",
        "volume-clone-pvc",
        "volume-blank",
        "help",
      ]);
      expect(stdout).toContain(
        "      --volume-import stringArray          Specify the source for DataVolume. Can be provided multiple times.\n" +
          "                                           Supported parameters:\n" +
          "                                             type blank - size:resource.Quantity,type:string,name:string,bootorder:uint\n",
      );
      expect(stdout).toContain(
        "      --infer-instancetype                 Specify if the Instance Type of the VM should be inferred from the first boot disk. Mutually exclusive with --infer-instancetype-from. (default true)\n",
      );
    },
  );

  it("vm's help is upstream's, byte for byte", async () => {
    const help = readFileSync(new URL("vm/testdata/help.txt", import.meta.url), "utf8");
    expect((await run(["create", "vm", "--help"])).stdout).toBe(help);
  });

  it.each(["clone"])("create %s is refused by name, not yet ported", async (kind) => {
    expect(await run(["create", kind, "--name", "x"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `"virtctl create ${kind}" is not supported by kubevirt-ts yet\n`,
    });
    expect((await run(["help", "create", kind])).stderr).toBe(
      `"virtctl create ${kind}" is not supported by kubevirt-ts yet\n`,
    );
  });

  it.each([
    ["instancetype", "Create VirtualMachineInstancetype or VirtualMachineClusterInstancetype manifest."],
    ["preference", "Create a VirtualMachinePreference or VirtualMachineClusterPreference manifest."],
  ])("help create %s shows its usage under the full path", async (kind, short) => {
    const { stdout } = await run(["help", "create", kind]);
    expect(stdout.startsWith(`${short}\n\nUsage:\n  virtctl create ${kind} [flags]\n`)).toBe(true);
  });

  it("the manifest goes to standard output, for kubectl apply -f -", async () => {
    const { code, stdout, stderr } = await run(["create", "vm", "--name=piped"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toMatch(
      /^apiVersion: kubevirt\.io\/v1\nkind: VirtualMachine\nmetadata:\n {2}name: piped\n/,
    );
  });
});
