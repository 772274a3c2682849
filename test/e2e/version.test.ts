// Honest edges of the installed API: virtctl and virt-api report the same build (package version plus
// this checkout's commit), so no command warns about a version skew; discovery names only what is served
// and an unserved subresource answers NotFound.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cluster, kubectl, kubectlOk, virtctl } from "./harness.js";

const SKEW_WARNING = "You are using a client virtctl version that is different from the KubeVirt version";

/** The fields of a `version.Info{GitVersion:"...", ...}` line as virtctl prints it. */
function versionLine(output: string, which: "Client" | "Server"): Record<string, string> {
  const line = output.split("\n").find((candidate) => candidate.startsWith(`${which} Version: `));
  if (line === undefined) throw new Error(`no ${which} Version line in: ${output}`);
  return Object.fromEntries([...line.matchAll(/(\w+):"([^"]*)"/g)].map((match) => [match[1], match[2]]));
}

describe("versions", () => {
  it("virtctl version: client and server are the same build of this checkout", async () => {
    const result = await virtctl(["version"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const client = versionLine(result.stdout, "Client");
    const server = versionLine(result.stdout, "Server");
    const head = execFileSync("git", ["-C", cluster.repoRoot, "rev-parse", "HEAD"], {
      encoding: "utf8",
    }).trim();
    expect(client["GitCommit"]).toBe(head);
    expect(client["GitVersion"]).toMatch(new RegExp(`^v\\d+\\.\\d+\\.\\d+\\+${head.slice(0, 14)}`));
    for (const field of ["GitVersion", "GitCommit", "GitTreeState", "BuildDate"]) {
      expect({ field, server: server[field] }).toEqual({ field, server: client[field] });
    }
  });

  it("a failing virtctl start or stop prints the server's error and no version-skew warning", async () => {
    for (const verb of ["start", "stop"]) {
      const result = await virtctl(["-n", "default", verb, "e2e-no-such-vm"]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('"e2e-no-such-vm" not found');
      expect(result.stderr).not.toContain(SKEW_WARNING);
    }
  });
});

describe("the subresource API's edges", () => {
  it("discovery names exactly the served subresources, for each version", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const list = JSON.parse(
        await kubectlOk(["get", "--raw", `/apis/subresources.kubevirt.io/${version}`]),
      ) as {
        resources: { name: string }[];
      };
      expect(list.resources.map((resource) => resource.name)).toEqual([
        "expand-vm-spec",
        "virtualmachineinstances/vnc",
        "virtualmachineinstances/vnc/screenshot",
        "virtualmachineinstances/console",
        "virtualmachineinstances/portforward",
        "virtualmachineinstances/pause",
        "virtualmachineinstances/unpause",
        "virtualmachineinstances/freeze",
        "virtualmachineinstances/unfreeze",
        "virtualmachineinstances/reset",
        "virtualmachineinstances/softreboot",
        "virtualmachines/start",
        "virtualmachines/stop",
        "virtualmachines/restart",
        "virtualmachines/migrate",
        "virtualmachines/expand-spec",
        "virtualmachineinstances/guestosinfo",
        "virtualmachineinstances/userlist",
        "virtualmachineinstances/filesystemlist",
        "virtualmachineinstances/addvolume",
        "virtualmachineinstances/removevolume",
      ]);
    }
  });

  it("an unserved subresource answers a NotFound Status", async () => {
    const result = await kubectl([
      "get",
      "--raw",
      "/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/any/objectgraph",
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("Error from server (NotFound)");
  });

  it("a virtctl command not built yet says so in one line", async () => {
    const result = await virtctl(["memory-dump", "get", "any"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toBe('"virtctl memory-dump" is not supported by kubevirt-ts yet\n');
  });
});
