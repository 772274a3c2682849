import { describe, expect, it } from "vitest";
import { parseAgent, parseFSFreezeStatus, parseFilesystem } from "./agent-parser.js";

describe("the guest agent's answers the poller reads itself", () => {
  it.each([
    ['{"return":"frozen"}', "frozen"],
    ['{ "return" : "thawed" }', "thawed"],
  ])("guest-fsfreeze-status %s", (reply, status) => {
    expect(parseFSFreezeStatus(reply)).toBe(status);
  });

  it.each([['{"return": {{frozen}'], ['{"return": frozen}'], ['{"return": ""}'], ['{"return": {"a": 1}}']])(
    "refuses the freeze status %s with upstream's words",
    (reply) => {
      expect(() => parseFSFreezeStatus(reply)).toThrow(`failed to strip FSFreeze status: ${reply}`);
    },
  );

  it("guest-info: the version and the commands with whether each is enabled", () => {
    const reply = JSON.stringify({
      return: {
        version: "7.2.0",
        supported_commands: [
          { enabled: true, name: "guest-get-osinfo", "success-response": true },
          { enabled: false, name: "guest-exec", "success-response": true },
        ],
      },
    });
    expect(parseAgent(reply)).toEqual({
      version: "7.2.0",
      supportedCommands: [
        { name: "guest-get-osinfo", enabled: true },
        { name: "guest-exec", enabled: false },
      ],
    });
    expect(parseAgent('{\n  "return":{\n    "version":"4.1"\n  }\n}')).toEqual({
      version: "4.1",
      supportedCommands: [],
    });
  });

  it("guest-get-fsinfo: name, mount point, type, usage and the disks' serial and bus", () => {
    const reply = JSON.stringify({
      return: [
        {
          name: "main",
          mountpoint: "/",
          type: "ext",
          "total-bytes": 99_999_999_999,
          "used-bytes": 33333,
          disk: [{ serial: "testserial-1234", "bus-type": "scsi", bus: 0, dev: "/dev/sda1" }],
        },
        { name: "tmpfs", mountpoint: "/run", type: "tmpfs", disk: [] },
      ],
    });
    expect(parseFilesystem(reply)).toEqual([
      {
        name: "main",
        mountpoint: "/",
        type: "ext",
        totalBytes: 99_999_999_999,
        usedBytes: 33333,
        disk: [{ serial: "testserial-1234", busType: "scsi" }],
      },
      { name: "tmpfs", mountpoint: "/run", type: "tmpfs", totalBytes: 0, usedBytes: 0, disk: [] },
    ]);
  });

  it.each([["not json"], ['{"error":{"class":"GenericError","desc":"x"}}'], ['{"return":{"name":"x"}}']])(
    "refuses a filesystem answer %s",
    (reply) => {
      expect(() => parseFilesystem(reply)).toThrow();
    },
  );
});
