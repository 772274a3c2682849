import { describe, expect, it } from "vitest";
import {
  FileSystemArrayWire,
  FileSystemListWire,
  GuestAgentInfoWire,
  GuestOSUserListWire,
  fileSystemListJSON,
  guestAgentInfoJSON,
  marshalIndent,
  userListJSON,
} from "./guest-agent-info.js";

const fs = {
  diskName: "vda1",
  mountPoint: "/",
  fileSystemType: "ext4",
  usedBytes: 5_368_709_120,
  totalBytes: 10_737_418_240,
  disk: [{ serial: "containerdisk", busType: "virtio" }],
};

describe("guest agent objects as upstream's encoding/json writes them", () => {
  it("guest info: Go's field order, omitempty fields left out, os and fsInfo always there", () => {
    const info = GuestAgentInfoWire.parse({
      fsFreezeStatus: "frozen",
      fsInfo: { disks: [fs] },
      userList: [{ userName: "root", loginTime: 1_700_000_000.123456 }],
      timezone: "UTC, 0",
      os: { id: "debian", name: "Debian GNU/Linux", version: "" },
      hostname: "testvmi",
      supportedCommands: [{ name: "guest-ping", enabled: true }, { name: "guest-exec" }],
      guestAgentVersion: "7.2.0",
      unknownField: 1,
    });
    expect(marshalIndent(guestAgentInfoJSON(info))).toBe(`{
  "guestAgentVersion": "7.2.0",
  "supportedCommands": [
    {
      "name": "guest-ping",
      "enabled": true
    },
    {
      "name": "guest-exec"
    }
  ],
  "hostname": "testvmi",
  "os": {
    "name": "Debian GNU/Linux",
    "id": "debian"
  },
  "timezone": "UTC, 0",
  "userList": [
    {
      "userName": "root",
      "loginTime": 1700000000.123456
    }
  ],
  "fsInfo": {
    "disks": [
      {
        "diskName": "vda1",
        "mountPoint": "/",
        "fileSystemType": "ext4",
        "usedBytes": 5368709120,
        "totalBytes": 10737418240,
        "disk": [
          {
            "serial": "containerdisk",
            "busType": "virtio"
          }
        ]
      }
    ]
  },
  "fsFreezeStatus": "frozen"
}`);
  });

  it("an empty guest info is an empty os and a null disk list, as Go writes the zero struct", () => {
    expect(guestAgentInfoJSON(GuestAgentInfoWire.parse({}))).toEqual({ os: {}, fsInfo: { disks: null } });
    expect(guestAgentInfoJSON(GuestAgentInfoWire.parse({ os: null, fsInfo: { disks: null } }))).toEqual({
      os: {},
      fsInfo: { disks: null },
    });
  });

  it("lists carry an empty metadata and their items, null when there were none", () => {
    expect(userListJSON(GuestOSUserListWire.parse({ items: [{ userName: "root", domain: "" }] }))).toEqual({
      metadata: {},
      items: [{ userName: "root" }],
    });
    expect(userListJSON(GuestOSUserListWire.parse({}))).toEqual({ metadata: {}, items: null });
    expect(fileSystemListJSON({ items: FileSystemArrayWire.parse([{ ...fs, disk: [] }]) })).toEqual({
      metadata: {},
      items: [
        {
          diskName: "vda1",
          mountPoint: "/",
          fileSystemType: "ext4",
          usedBytes: 5_368_709_120,
          totalBytes: 10_737_418_240,
        },
      ],
    });
    expect(fileSystemListJSON(FileSystemListWire.parse({ items: [] }))).toEqual({ metadata: {}, items: [] });
  });

  it("byte counts beyond 32 bits are kept; a fraction is refused", () => {
    expect(FileSystemArrayWire.parse([fs])?.[0]?.totalBytes).toBe(10_737_418_240);
    expect(() => FileSystemArrayWire.parse([{ ...fs, usedBytes: 1.5 }])).toThrow();
  });

  it("escapes what Go's encoder escapes inside strings", () => {
    expect(marshalIndent({ hostname: "a<b>&c" })).toBe('{\n  "hostname": "a\\u003cb\\u003e\\u0026c"\n}');
  });
});
