import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { status, testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import * as version from "../../version/version.js";
import { clientVersion, formatVersionInfo } from "./info.js";

const fixture = useScriptedApiServer();

const packageVersion = (
  JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

const serverInfo = {
  gitVersion: "v1.6.0",
  gitCommit: "0123abc",
  gitTreeState: "clean",
  buildDate: "2026-01-02T03:04:05Z",
  goVersion: "go1.23.4",
  compiler: "gc",
  platform: "linux/amd64",
};

function serveVersion(preferred = "subresources.kubevirt.io/v1"): void {
  fixture.server.handler = (request) => {
    if (request.path === "/apis/subresources.kubevirt.io") {
      return {
        status: 200,
        body: {
          kind: "APIGroup",
          name: "subresources.kubevirt.io",
          preferredVersion: { groupVersion: preferred, version: "v1" },
        },
      };
    }
    if (request.path === `/apis/${preferred}/version`) return { status: 200, body: serverInfo };
    return status(404, "not found", "NotFound");
  };
}

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

describe("virtctl version", () => {
  it("the client's version is this build's, the one every component reports", () => {
    expect(clientVersion()).toEqual(version.get());
    expect(clientVersion().gitVersion).toMatch(
      new RegExp(`^v${packageVersion.replace(/\./g, "\\.")}(\\+|$)`),
    );
  });

  it("prints both versions as Go's %#v of version.Info, asking for the group's preferred version", async () => {
    serveVersion("subresources.kubevirt.io/v1alpha3");
    const result = await virtctl("version");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Client Version: ${formatVersionInfo(clientVersion())}\n` +
        'Server Version: version.Info{GitVersion:"v1.6.0", GitCommit:"0123abc", GitTreeState:"clean", BuildDate:"2026-01-02T03:04:05Z", GoVersion:"go1.23.4", Compiler:"gc", Platform:"linux/amd64"}\n',
    );
    expect(fixture.server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /apis/subresources.kubevirt.io",
      "GET /apis/subresources.kubevirt.io/v1alpha3/version",
    ]);
  });

  it("--client needs no server", async () => {
    const io = testIO({});
    const code = await execute(["version", "--client"], io, "virtctl");
    expect(code).toBe(0);
    expect(io.output()).toBe(`Client Version: ${formatVersionInfo(clientVersion())}\n`);
  });

  it("a server error is one line after the client version", async () => {
    fixture.server.handler = () => status(503, "service unavailable", "ServiceUnavailable");
    const result = await virtctl("version");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Client Version: /);
    expect(result.stderr).toBe("failed to get server version: service unavailable\n");
  });

  it("takes no arguments", async () => {
    const result = await virtctl("version", "extra");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `unknown command "extra" for "virtctl version"\nRun 'virtctl version --help' for usage.\n`,
    );
  });
});
