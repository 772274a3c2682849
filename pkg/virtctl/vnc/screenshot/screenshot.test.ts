import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { execute } from "../../root.js";
import { status, testIO, useScriptedApiServer } from "../../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();
const dir = mkdtempSync(join(tmpdir(), "virtctl-screenshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452ff00", "hex");
const path =
  "/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/testvmi/vnc/screenshot";

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors(), raw: io };
}

describe("virtctl vnc screenshot", () => {
  it("writes the PNG virt-api answers to --file, with moveCursor passed on", async () => {
    fixture.server.handler = () => ({ status: 200, body: PNG, contentType: "image/png" });
    const file = join(dir, "shot.png");
    const result = await virtctl("vnc", "screenshot", "testvmi", "--file", file, "-m");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(readFileSync(file).equals(PNG)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(fixture.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET ${path}?moveCursor=true`,
    ]);
  });

  it("writes to stdout for -f -", async () => {
    fixture.server.handler = () => ({ status: 200, body: PNG, contentType: "image/png" });
    const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
    const bytes: Buffer[] = [];
    io.stdout.on("data", (chunk: Buffer) => bytes.push(chunk));
    expect(await execute(["vnc", "screenshot", "-f", "-", "testvmi"], io, "virtctl")).toBe(0);
    expect(Buffer.concat(bytes).equals(PNG)).toBe(true);
    expect(fixture.server.requests[0]?.path).toBe(`${path}?moveCursor=false`);
  });

  it("says which VMI could not be reached, with virt-api's reason", async () => {
    fixture.server.handler = () => ({
      status: 500,
      body: 'virtualmachineinstance.kubevirt.io "testvmi" not found',
      contentType: "text/plain",
    });
    const result = await virtctl("vnc", "screenshot", "testvmi", "-f", join(dir, "never.png"));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Can't access VMI testvmi: an error on the server \("virtualmachineinstance.kubevirt.io "testvmi" not found"\) has prevented the request from succeeding\n/,
    );
    fixture.server.handler = () => status(403, "forbidden here", "Forbidden");
    expect((await virtctl("vnc", "screenshot", "testvmi", "-f", "x")).stderr).toMatch(
      /^Can't access VMI testvmi: forbidden here\n/,
    );
  });

  it("needs --file, as upstream marks it required", async () => {
    const result = await virtctl("vnc", "screenshot", "testvmi");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `required flag(s) "file" not set\nRun 'virtctl vnc screenshot --help' for usage.\n`,
    );
    expect(fixture.server.requests).toEqual([]);
  });

  it("reports a file it cannot write", async () => {
    fixture.server.handler = () => ({ status: 200, body: PNG, contentType: "image/png" });
    const result = await virtctl("vnc", "screenshot", "testvmi", "-f", join(dir, "missing", "shot.png"));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Can't write image to a file: ENOENT/);
  });
});
