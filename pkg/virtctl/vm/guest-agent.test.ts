import { describe, expect, it } from "vitest";
import { execute } from "../root.js";
import { testIO, useScriptedApiServer } from "../testing/scripted-apiserver.js";

const fixture = useScriptedApiServer();

async function virtctl(...argv: string[]) {
  const io = testIO({ KUBECONFIG: fixture.kubeconfig.path });
  const code = await execute(argv, io, "virtctl");
  return { code, stdout: io.output(), stderr: io.errors() };
}

const vmiPath = (subresource: string) =>
  `/apis/subresources.kubevirt.io/v1/namespaces/from-context/virtualmachineinstances/testvm/${subresource}`;

describe("guestosinfo, userlist and fslist print the guest agent's objects as upstream does", () => {
  it("guestosinfo: Go's field order and two-space indent, empty fields left out", async () => {
    // what virt-api might send, keys in any order and with zero values
    fixture.server.handler = () => ({
      status: 200,
      body: {
        fsInfo: { disks: null },
        timezone: "UTC, 0",
        os: { id: "debian", name: "Debian GNU/Linux", version: "" },
        hostname: "testvm",
        guestAgentVersion: "7.2.0",
        fsFreezeStatus: "",
        supportedCommands: [{ name: "guest-ping", enabled: true }],
      },
    });
    const result = await virtctl("guestosinfo", "testvm");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`{
  "guestAgentVersion": "7.2.0",
  "supportedCommands": [
    {
      "name": "guest-ping",
      "enabled": true
    }
  ],
  "hostname": "testvm",
  "os": {
    "name": "Debian GNU/Linux",
    "id": "debian"
  },
  "timezone": "UTC, 0",
  "fsInfo": {
    "disks": null
  }
}
`);
    expect(fixture.server.requests.map((request) => [request.method, request.path])).toEqual([
      ["GET", vmiPath("guestosinfo")],
    ]);
  });

  it("userlist", async () => {
    fixture.server.handler = () => ({
      status: 200,
      body: { metadata: {}, items: [{ userName: "root", loginTime: 1700000000.123456 }] },
    });
    const result = await virtctl("userlist", "testvm");
    expect(result.stdout).toBe(`{
  "metadata": {},
  "items": [
    {
      "userName": "root",
      "loginTime": 1700000000.123456
    }
  ]
}
`);
    expect(fixture.server.requests[0]?.path).toBe(vmiPath("userlist"));
  });

  it("fslist asks for filesystemlist", async () => {
    fixture.server.handler = () => ({
      status: 200,
      body: {
        metadata: {},
        items: [
          {
            diskName: "vda1",
            mountPoint: "/",
            fileSystemType: "ext4",
            usedBytes: 5368709120,
            totalBytes: 10737418240,
            disk: [{ busType: "virtio", serial: "containerdisk" }],
          },
        ],
      },
    });
    const result = await virtctl("fslist", "testvm");
    expect(JSON.parse(result.stdout)).toEqual({
      metadata: {},
      items: [
        {
          diskName: "vda1",
          mountPoint: "/",
          fileSystemType: "ext4",
          usedBytes: 5368709120,
          totalBytes: 10737418240,
          disk: [{ serial: "containerdisk", busType: "virtio" }],
        },
      ],
    });
    expect(result.stdout).toContain('"serial": "containerdisk",\n          "busType": "virtio"');
    expect(fixture.server.requests[0]?.path).toBe(vmiPath("filesystemlist"));
  });

  it.each([
    ["guestosinfo", "Error getting guestosinfo of VirtualMachineInstance testvm"],
    ["userlist", "Error listing users of VirtualMachineInstance testvm"],
    ["fslist", "Error listing filesystems of VirtualMachineInstance testvm"],
  ])("%s words virt-api's refusal as upstream", async (command, prefix) => {
    // virt-api answers the refusal as plain text with a 500; client-go makes its generic error of it.
    fixture.server.handler = () => ({
      status: 500,
      body: 'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvm": VMI does not have guest agent connected',
    });
    const result = await virtctl(command, "testvm");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `${prefix}, an error on the server ("Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvm": VMI does not have guest agent connected") has prevented the request from succeeding\n`,
    );
  });

  it("takes exactly one VMI name", async () => {
    const result = await virtctl("guestosinfo");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("accepts 1 arg(s), received 0\nRun 'virtctl guestosinfo --help' for usage.\n");
    expect(fixture.server.requests).toEqual([]);
  });

  it("has upstream's usage", async () => {
    const result = await virtctl("userlist", "--help");
    expect(result.stdout).toContain(
      "Return full list of logged in users on the guest machine.\n\nUsage:\n  virtctl userlist (VMI) [flags]\n\nExamples:\n  # Userlist a virtual machine instance called 'myvm':\n  virtctl userlist myvm\n",
    );
  });
});
