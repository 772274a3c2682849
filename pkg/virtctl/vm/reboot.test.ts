import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const vmiPath = (name: string, subresource: string) =>
  `/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/${name}/${subresource}`;

describe("soft-reboot and reset put to the VMI's subresource, with no body", () => {
  it.each([
    { argv: ["soft-reboot", "vm-cirros"], subresource: "softreboot", line: "soft-reboot" },
    { argv: ["reset", "vm-cirros"], subresource: "reset", line: "reset" },
  ])("$argv", async ({ argv, subresource, line }) => {
    const result = await virtctl(...argv);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`VMI vm-cirros was scheduled to ${line}\n`);
    expect(fixture.server.requests.map((request) => [request.method, request.path, request.body])).toEqual([
      ["PUT", vmiPath("vm-cirros", subresource), ""],
    ]);
  });

  it.each([
    ["soft-reboot", "Error soft rebooting VirtualMachineInstance vm-cirros: "],
    ["reset", "Error reseting VirtualMachineInstance vm-cirros: "],
  ])("%s words a refusal as upstream: one line, exit 1", async (command, prefix) => {
    const why =
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "vm-cirros": VM is not running';
    fixture.server.handler = () => status(409, why);
    const result = await virtctl(command, "vm-cirros");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`${prefix}${why}\n`);
  });

  it.each([
    [
      "soft-reboot",
      "Soft reboot a virtual machine instance\n\nUsage:\n  virtctl soft-reboot (VMI) [flags]\n\nExamples:\n  # Soft-Reboot a virtualmachineinstance called 'myvmi':\n  virtctl soft-reboot myvmi\n\nFlags:\n",
    ],
    [
      "reset",
      "Reset a virtual machine instance\n\nUsage:\n  virtctl reset (VMI) [flags]\n\nExamples:\n  # Reset a virtualmachineinstance called 'myvmi':\n  virtctl reset myvmi\n\nFlags:\n",
    ],
  ])("%s --help shows upstream's usage and example", async (command, help) => {
    const result = await virtctl(command, "--help");
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(help)).toBe(true);
    expect(result.stdout).toContain(`  -h, --help   help for ${command}`);
    expect(fixture.server.requests).toEqual([]);
  });

  it("takes exactly one VMI name", async () => {
    const result = await virtctl("soft-reboot", "vmi", "vm-cirros");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("accepts 1 arg(s), received 2\nRun 'virtctl soft-reboot --help' for usage.\n");
  });
});
