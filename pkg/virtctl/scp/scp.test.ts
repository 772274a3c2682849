import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { useFakeLocalClients } from "../testing/fake-clients.js";
import { testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import { parseSCPTarget } from "./scp.js";

const fixture = useScriptedApiServer();
useFakeLocalClients();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, args: io.output().trimEnd().split("\n"), stderr: io.errors() };
}

describe("parseSCPTarget", () => {
  it("takes the side with a ':' as the remote one", () => {
    expect(parseSCPTarget("myfile.bin", "jdoe@vmi/testvmi:myfile.bin")).toEqual({
      local: "myfile.bin",
      remote: { kind: "vmi", namespace: "", name: "testvmi", username: "jdoe", path: "myfile.bin" },
      toRemote: true,
    });
    expect(parseSCPTarget("vm/testvm/ns:/a:b", "here")).toMatchObject({
      local: "here",
      remote: { kind: "vm", namespace: "ns", name: "testvm", path: "/a:b" },
      toRemote: false,
    });
  });
});

describe("virtctl scp runs the system's client", () => {
  it("scp: the remote side in either position, -r and -p (preserve), -i when given", async () => {
    const up = await virtctl(
      "scp",
      "--recursive",
      "--preserve",
      "-i",
      "/k/id",
      "./dir",
      "jdoe@vm/testvm/ns:/tmp/",
    );
    expect(up.args.slice(2)).toEqual(["-i", "/k/id", "-r", "-p", "./dir", "jdoe@vm.testvm.ns:/tmp/"]);
    expect(up.args[1]).toMatch(/ port-forward --stdio=true vm\/testvm\/ns 22$/);
    const down = await virtctl("scp", "-l", "alice", "vmi/testvmi:notes.txt", "/tmp/notes.txt");
    expect(down.args.slice(2)).toEqual(["alice@vmi.testvmi.from-context:notes.txt", "/tmp/notes.txt"]);
  });

  it("scp refuses two remote sides or none", async () => {
    expect((await virtctl("scp", "vmi/a:x", "vmi/b:y")).stderr).toBe(
      'copying from a remote location to another remote location is not supported: "vmi/a:x" to "vmi/b:y"\n',
    );
    expect((await virtctl("scp", "a", "b")).stderr).toBe(
      'none of the two provided locations seems to be a remote location: "a" to "b"\n',
    );
  });
});
