import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const migratePath =
  "/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachines/testvm/migrate";

describe("virtctl migrate", () => {
  it.each([
    { extra: [], body: {} },
    { extra: ["--dry-run"], body: { dryRun: ["All"] } },
    {
      extra: ["--addedNodeSelector", "key2=value2,key1=value1"],
      body: { addedNodeSelector: { key1: "value1", key2: "value2" } },
    },
    {
      extra: ["--dry-run", "--addedNodeSelector=key1=value1,key2=value2"],
      body: { dryRun: ["All"], addedNodeSelector: { key1: "value1", key2: "value2" } },
    },
    {
      extra: ["--addedNodeSelector", "key1=value1", "--addedNodeSelector", "key2=value2"],
      body: { addedNodeSelector: { key1: "value1", key2: "value2" } },
    },
    { extra: ["--addedNodeSelector", "key=a=b"], body: { addedNodeSelector: { key: "a=b" } } },
    { extra: ["--addedNodeSelector", '"zone=a"'], body: { addedNodeSelector: { zone: "a" } } },
  ])("$extra sends $body to the VM's migrate subresource", async ({ extra, body }) => {
    const result = await virtctl("migrate", "testvm", ...extra);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const dryRun = "dryRun" in body ? "Dry Run execution\n" : "";
    expect(result.stdout).toBe(`${dryRun}VM testvm was scheduled to migrate\n`);
    expect(fixture.server.requests).toHaveLength(1);
    const [request] = fixture.server.requests;
    expect(request?.method).toBe("PUT");
    expect(request?.path).toBe(migratePath);
    expect(request?.body).toBe(JSON.stringify(body));
  });

  it.each([
    [
      ["--addedNodeSelector", "key1"],
      'invalid argument "key1" for "--addedNodeSelector" flag: key1 must be formatted as key=value',
    ],
    [
      ["--addedNodeSelector", "key1,key2"],
      'invalid argument "key1,key2" for "--addedNodeSelector" flag: key1,key2 must be formatted as key=value',
    ],
    [
      ["--addedNodeSelector", "a=1,key2,b=2"],
      'invalid argument "a=1,key2,b=2" for "--addedNodeSelector" flag: key2 must be formatted as key=value',
    ],
  ])("refuses a badly formatted --addedNodeSelector %j", async (extra, message) => {
    const result = await virtctl("migrate", "testvm", ...extra);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toBe(message);
    expect(fixture.server.requests).toEqual([]);
  });

  it("needs exactly one VM", async () => {
    const result = await virtctl("migrate");
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toBe("accepts 1 arg(s), received 0");
  });

  it("prints the server's refusal after upstream's prefix", async () => {
    fixture.server.handler = (request) =>
      request.method === "PUT"
        ? status(
            500,
            'Internal error occurred: admission webhook "migrations-mutator.kubevirt.io" denied the request: kubevirt-ts does not support virtualmachineinstancemigrations.kubevirt.io yet (webhook migrations-mutator.kubevirt.io)',
            "InternalError",
          )
        : status(404, "not served", "NotFound");
    const result = await virtctl("migrate", "testvm");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'Error migrating VirtualMachine Internal error occurred: admission webhook "migrations-mutator.kubevirt.io" denied the request: kubevirt-ts does not support virtualmachineinstancemigrations.kubevirt.io yet (webhook migrations-mutator.kubevirt.io)\n',
    );
  });

  it("documents its flags as upstream does", async () => {
    const result = await virtctl("migrate", "--help");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Migrate a virtual machine.");
    expect(result.stdout).toContain("  # Migrate a virtual machine called 'myvm':\n  virtctl migrate myvm");
    expect(result.stdout).toContain(
      "      --addedNodeSelector stringToString   --addedNodeSelector=key=value1,key2=value2: configure an additional node selector for the one-off migration attempt. AddedNodeSelector can only restrict constraints already set on the VM. By default the scheduler is responsible for finding the best Node, which is the recommended way of migrating VMs. (default [])\n",
    );
    expect(result.stdout).toContain("      --dry-run ");
  });
});
