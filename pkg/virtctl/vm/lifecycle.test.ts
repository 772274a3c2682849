import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import {
  TOKEN,
  status,
  testIO,
  ScriptedApiServer,
  useScriptedApiServer,
  writeKubeconfig,
} from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const vmPath = (namespace: string, name: string, subresource: string) =>
  `/apis/subresources.kubevirt.io/v1/namespaces/${namespace}/virtualmachines/${name}/${subresource}`;

describe("start, stop and restart send their options to the VM's subresource", () => {
  it.each([
    { argv: ["start", "vm-cirros"], sub: "start", body: {} },
    { argv: ["start", "vm-cirros", "--paused"], sub: "start", body: { paused: true } },
    { argv: ["start", "--dry-run", "vm-cirros"], sub: "start", body: { dryRun: ["All"] } },
    { argv: ["stop", "vm-cirros"], sub: "stop", body: {} },
    { argv: ["stop", "vm-cirros", "--force", "--grace-period=0"], sub: "stop", body: { gracePeriod: 0 } },
    { argv: ["restart", "vm-cirros"], sub: "restart", body: {} },
    {
      argv: ["restart", "vm-cirros", "--force", "--grace-period", "0", "--dry-run"],
      sub: "restart",
      body: { gracePeriodSeconds: 0, dryRun: ["All"] },
    },
  ])("$argv", async ({ argv, sub, body }) => {
    const result = await virtctl(...argv);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const dryRun = "dryRun" in body ? "Dry Run execution\n" : "";
    expect(result.stdout).toBe(`${dryRun}VM vm-cirros was scheduled to ${sub}\n`);
    expect(fixture.server.requests).toHaveLength(1);
    const [request] = fixture.server.requests;
    expect(request?.method).toBe("PUT");
    expect(request?.path).toBe(vmPath("from-context", "vm-cirros", sub));
    expect(JSON.parse(request?.body ?? "")).toEqual(body);
    expect(request?.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe("errors are one line and exit 1", () => {
  it.each([
    { argv: ["start", "vm"], prefix: "Error starting VirtualMachine " },
    { argv: ["stop", "vm"], prefix: "error stopping VirtualMachine " },
    { argv: ["stop", "vm", "--force", "--grace-period=0"], prefix: "error force stopping VirtualMachine: " },
    { argv: ["restart", "vm"], prefix: "error restarting VirtualMachine: " },
    {
      argv: ["restart", "vm", "--grace-period=0", "--force"],
      prefix: "error force restarting VirtualMachine: ",
    },
  ])("$argv prints the server's Status message", async ({ argv, prefix }) => {
    fixture.server.handler = (request) =>
      request.method === "PUT"
        ? status(409, "VM is not running", "Conflict")
        : status(404, "not served", "NotFound");
    const result = await virtctl(...argv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`${prefix}VM is not running\n`);
  });

  it("a reply that is not a Status is worded like client-go's generic errors", async () => {
    fixture.server.handler = () => ({ status: 404, body: "404 page not found" });
    const result = await virtctl("start", "vm");
    expect(result.stderr).toBe(
      "Error starting VirtualMachine the server could not find the requested resource\n",
    );
  });

  it("--force and --grace-period must come together", async () => {
    for (const argv of [
      ["stop", "vm", "--force"],
      ["restart", "vm", "--grace-period=0"],
    ]) {
      const result = await virtctl(...argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("Must both use --force=true and set --grace-period.\n");
    }
    expect(fixture.server.requests.filter((request) => request.method === "PUT")).toEqual([]);
  });

  it("after a failure, a client/server minor version skew is pointed out", async () => {
    fixture.server.handler = (request) => {
      if (request.path === "/apis/subresources.kubevirt.io") {
        return { status: 200, body: { preferredVersion: { groupVersion: "subresources.kubevirt.io/v1" } } };
      }
      if (request.path.endsWith("/version")) return { status: 200, body: { gitVersion: "v9.7.1" } };
      return status(500, "boom", "InternalError");
    };
    const result = await virtctl("stop", "vm");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^You are using a client virtctl version that is different from the KubeVirt version running in the cluster\nClient Version: v\d+\.\d+\.\d+(\+[0-9a-f]{14}(-dirty)?)?\nServer Version: v9\.7\.1\n\nerror stopping VirtualMachine boom\n$/,
    );
  });

  it("an unreachable server is reported with the request that failed", async () => {
    const closed = await ScriptedApiServer.start();
    const config = writeKubeconfig(closed);
    const url = closed.url;
    await closed.close();
    const io = testIO({ KUBECONFIG: config.path });
    const code = await execute(["start", "vm"], io, "virtctl");
    config.remove();
    expect(code).toBe(1);
    expect(io.errors()).toBe(
      `Error starting VirtualMachine Put "${url}${vmPath("from-context", "vm", "start")}": connect ECONNREFUSED ${url.replace("https://", "")}\n`,
    );
  });
});
