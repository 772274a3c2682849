import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { useFakeLocalClients } from "../testing/fake-clients.js";
import { testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";
import { localClientArgs, parseSSHTarget, proxyCommandOption, sshHost, type SSHOptions } from "./ssh.js";

const fixture = useScriptedApiServer();
const self = { argv: ["/usr/bin/node", "/opt/kubevirt-ts/bin/virtctl.js"], clientFlags: [] };
const options: SSHOptions = {
  port: 22,
  username: "",
  identityFilePath: "/home/jdoe/.ssh/id_rsa",
  identityFilePathProvided: false,
  knownHostsFilePath: "/home/jdoe/.ssh/kubevirt_known_hosts",
  knownHostsFilePathProvided: false,
  additionalOptions: [],
};

describe("parseSSHTarget (upstream's table)", () => {
  it.each([
    ["vmi/testvmi", { kind: "vmi", namespace: "", name: "testvmi", username: "" }],
    ["user@vmi/testvmi/default", { kind: "vmi", namespace: "default", name: "testvmi", username: "user" }],
    ["user@vm/testvm", { kind: "vm", namespace: "", name: "testvm", username: "user" }],
    [
      "vmi/testvmi.with.dots/default.with.dots",
      { kind: "vmi", namespace: "default.with.dots", name: "testvmi.with.dots", username: "" },
    ],
  ])("%s", (arg, expected) => {
    expect(parseSSHTarget(arg)).toEqual(expected);
  });

  it.each([
    ["", "expected target after '@'"],
    ["user@", "expected target after '@'"],
    ["@vmi/testvmi", "expected username before '@'"],
    ["@/.", "expected username before '@'"],
    ["user@testvmi", "target must contain type and name separated by '/'"],
    ["user@vmi/testvmi/", "namespace cannot be empty"],
    ["user@invalid/testvmi", "unsupported resource type 'invalid'"],
  ])("refuses %j", (arg, message) => {
    expect(() => parseSSHTarget(arg)).toThrow(message);
  });
});

describe("the local ssh client's command line", () => {
  it("is the ProxyCommand through this virtctl's port-forward, then the target, as upstream's LocalClientCmd", () => {
    const target = `jdoe@${sshHost("vmi", "testvmi", "default")}`;
    expect(localClientArgs(self, "vmi", "default", "testvmi", { ...options, port: 12345 }, [target])).toEqual(
      [
        "-o",
        "ProxyCommand=/usr/bin/node /opt/kubevirt-ts/bin/virtctl.js port-forward --stdio=true vmi/testvmi/default 12345",
        "jdoe@vmi.testvmi.default",
      ],
    );
  });

  it("adds the extra options, the known hosts and the identity only when given", () => {
    const given = {
      ...options,
      identityFilePathProvided: true,
      knownHostsFilePathProvided: true,
      additionalOptions: ["-o StrictHostKeyChecking=no"],
    };
    expect(localClientArgs(self, "vm", "ns", "vm1", given, ["vm.vm1.ns", "ls /"]).slice(2)).toEqual([
      "-o StrictHostKeyChecking=no",
      "-o",
      "UserKnownHostsFile=/home/jdoe/.ssh/kubevirt_known_hosts",
      "-i",
      "/home/jdoe/.ssh/id_rsa",
      "vm.vm1.ns",
      "ls /",
    ]);
  });

  it("quotes for the shell ssh runs the ProxyCommand with, and hands the client flags on", () => {
    const spaced = {
      argv: ["/usr/bin/node", "/home/j doe/virtctl.js"],
      clientFlags: ["--kubeconfig=/tmp/k config"],
    };
    expect(proxyCommandOption(spaced, "vmi", "default", "testvmi", 22)).toBe(
      "ProxyCommand=/usr/bin/node '/home/j doe/virtctl.js' '--kubeconfig=/tmp/k config' port-forward --stdio=true vmi/testvmi/default 22",
    );
  });
});

describe("virtctl ssh runs the system's client", () => {
  useFakeLocalClients();

  async function virtctl(...argv: string[]) {
    const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
    const code = await execute(argv, io, "virtctl");
    return { code, args: io.output().trimEnd().split("\n"), stderr: io.errors() };
  }

  it("ssh: the user and target, the command, the port in the ProxyCommand; the client's failure is virtctl's", async () => {
    const result = await virtctl(
      "ssh",
      "root@vmi/testvmi",
      "-p",
      "2222",
      "-c",
      "uname -a",
      "-t",
      "-o StrictHostKeyChecking=no",
      "--kubeconfig",
      fixture.kubeconfig.path,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^exit status 3\n/);
    expect(result.args[0]).toBe("-o");
    expect(result.args[1]).toMatch(
      new RegExp(
        `^ProxyCommand=.* --kubeconfig=${fixture.kubeconfig.path} port-forward --stdio=true vmi/testvmi/from-context 2222$`,
      ),
    );
    expect(result.args.slice(2)).toEqual([
      "-o StrictHostKeyChecking=no",
      "root@vmi.testvmi.from-context",
      "uname -a",
    ]);
  });
});
