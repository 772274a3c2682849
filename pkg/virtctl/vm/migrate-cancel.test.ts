import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer, type RecordedRequest } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const MIGRATIONS = "/apis/kubevirt.io/v1/namespaces/from-context/virtualmachineinstancemigrations";
const LIST = `${MIGRATIONS}?labelSelector=kubevirt.io%2Fvmi-name%3D%3Dtestvm`;

const migration = (name: string, phase?: string) => ({
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstanceMigration",
  metadata: { name, namespace: "from-context", labels: { "kubevirt.io/vmi-name": "testvm" } },
  spec: { vmiName: "testvm" },
  ...(phase === undefined ? {} : { status: { phase } }),
});

const list = (...items: unknown[]) => ({
  status: 200,
  body: { apiVersion: "kubevirt.io/v1", kind: "VirtualMachineInstanceMigrationList", metadata: {}, items },
});

const calls = (requests: RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path}`);

describe("virtctl migrate-cancel", () => {
  it("deletes the VMI's migration that is not final", async () => {
    fixture.server.handler = (request) =>
      request.method === "GET"
        ? list(
            migration("done", "Succeeded"),
            migration("failed", "Failed"),
            migration("testvm-migration", "Running"),
          )
        : { status: 200, body: status(200, "", "").body };
    const result = await virtctl("migrate-cancel", "testvm");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("VM testvm was scheduled to migrate-cancel\n");
    expect(calls(fixture.server.requests)).toEqual([`GET ${LIST}`, `DELETE ${MIGRATIONS}/testvm-migration`]);
    expect(JSON.parse(fixture.server.requests[1]?.body ?? "")).toEqual({});
  });

  it("cancels a migration with no phase yet, and passes a dry run on", async () => {
    fixture.server.handler = (request) =>
      request.method === "GET" ? list(migration("fresh")) : { status: 200, body: {} };
    const result = await virtctl("migrate-cancel", "testvm", "--dry-run");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Dry Run execution\nVM testvm was scheduled to migrate-cancel\n");
    expect(calls(fixture.server.requests)).toEqual([`GET ${LIST}`, `DELETE ${MIGRATIONS}/fresh`]);
    expect(JSON.parse(fixture.server.requests[1]?.body ?? "")).toEqual({ dryRun: ["All"] });
  });

  it("fails when every migration of the VMI is final", async () => {
    fixture.server.handler = (request) =>
      request.method === "GET" && request.path === LIST
        ? list(migration("done", "Succeeded"))
        : status(404, "no", "NotFound");
    const result = await virtctl("migrate-cancel", "testvm");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("Found no migration to cancel for testvm\n");
    expect(fixture.server.requests.filter((r) => r.method === "DELETE")).toEqual([]);
  });

  it("fails when the VMI has no migration at all, after announcing a dry run", async () => {
    fixture.server.handler = (request) => (request.path === LIST ? list() : status(404, "no", "NotFound"));
    const result = await virtctl("migrate-cancel", "testvm", "--dry-run");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("Dry Run execution\n");
    expect(result.stderr).toBe("Found no migration to cancel for testvm\n");
  });

  it("reports a failed list with upstream's wording", async () => {
    fixture.server.handler = () => status(403, "virtualmachineinstancemigrations is forbidden", "Forbidden");
    const result = await virtctl("migrate-cancel", "testvm", "--dry-run");
    expect(result.code).toBe(1);
    // The dry run is announced only once the list succeeded.
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "Error fetching virtual machine instance migration list  virtualmachineinstancemigrations is forbidden\n",
    );
  });

  it("reports a failed deletion with upstream's wording", async () => {
    fixture.server.handler = (request) =>
      request.method === "GET" && request.path === LIST
        ? list(migration("m1", "Running"))
        : status(404, 'virtualmachineinstancemigrations.kubevirt.io "m1" not found', "NotFound");
    const result = await virtctl("migrate-cancel", "testvm");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error canceling migration m1 of a VirtualMachine testvm: virtualmachineinstancemigrations.kubevirt.io "m1" not found\n',
    );
  });

  it("needs exactly one VM", async () => {
    const result = await virtctl("migrate-cancel");
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toBe("accepts 1 arg(s), received 0");
  });

  it("shows upstream's example", async () => {
    const result = await virtctl("migrate-cancel", "--help");
    expect(result.stdout).toContain("Cancel migration of a virtual machine.");
    expect(result.stdout).toContain(
      "  # Migrate-Cancel a virtual machine called 'myvm':\n  virtctl migrate-cancel myvm",
    );
  });
});
