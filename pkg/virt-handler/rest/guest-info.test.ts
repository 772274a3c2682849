import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/index.js";
import { parseVMISubresourcePath } from "./common.js";
import { GUEST_INFO_SUBRESOURCES, GuestInfoHandler } from "./guest-info.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} } },
  status: { phase: "Running" },
};

const launcher = {
  getGuestInfo: async () => ({
    guestAgentVersion: "7.2.0",
    hostname: "testvmi",
    os: { name: "Debian GNU/Linux", id: "debian" },
    timezone: "UTC, 0",
    fsInfo: { disks: null },
  }),
  getUsers: async () => ({ items: [{ userName: "root", domain: "", loginTime: 1_700_000_000.5 }] }),
  getFilesystems: async () => ({
    items: [
      { diskName: "vda1", mountPoint: "/", fileSystemType: "ext4", usedBytes: 1, totalBytes: 2, disk: [] },
    ],
  }),
};

const handler = (overrides: Partial<ConstructorParameters<typeof GuestInfoHandler>[0]> = {}) =>
  new GuestInfoHandler({
    getVMI: () => vmi,
    launcher: async () => launcher,
    logger: silentLogger,
    ...overrides,
  });

const target = (subresource: (typeof GUEST_INFO_SUBRESOURCES)[number]) => ({
  namespace: "default",
  name: "testvmi",
  subresource,
});

describe("virt-handler's guest agent endpoints", () => {
  it.each([
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/guestosinfo", "guestosinfo"],
    ["/v1/namespaces/ns/virtualmachineinstances/a%2Db/userlist?x=1", "userlist"],
    ["/v1/namespaces/ns/virtualmachineinstances/b/filesystemlist", "filesystemlist"],
    ["/v1/namespaces/ns/virtualmachineinstances/b/pause", undefined],
    ["/v1/namespaces/ns/virtualmachineinstances/b/guestosinfo/more", undefined],
  ])("%s is %s", (url, subresource) => {
    expect(parseVMISubresourcePath(url, GUEST_INFO_SUBRESOURCES)?.subresource).toBe(subresource);
  });

  it("answers the launcher's guest info as upstream's JSON", async () => {
    expect(await handler().serve("GET", target("guestosinfo"))).toEqual({
      code: 200,
      json: {
        guestAgentVersion: "7.2.0",
        hostname: "testvmi",
        os: { name: "Debian GNU/Linux", id: "debian" },
        timezone: "UTC, 0",
        fsInfo: { disks: null },
      },
    });
  });

  it("answers the user and filesystem lists, empty fields left out", async () => {
    expect(await handler().serve("GET", target("userlist"))).toEqual({
      code: 200,
      json: { metadata: {}, items: [{ userName: "root", loginTime: 1_700_000_000.5 }] },
    });
    expect(await handler().serve("GET", target("filesystemlist"))).toEqual({
      code: 200,
      json: {
        metadata: {},
        items: [{ diskName: "vda1", mountPoint: "/", fileSystemType: "ext4", usedBytes: 1, totalBytes: 2 }],
      },
    });
  });

  it.each([
    ["a PUT", handler(), "PUT", { code: 405, message: "405: Method Not Allowed" }],
    [
      "a VMI not on this node",
      handler({ getVMI: () => undefined }),
      "GET",
      { code: 404, message: "VMI default/testvmi does not exist" },
    ],
    [
      "a VMI without a launcher socket",
      handler({ launcher: async () => undefined }),
      "GET",
      { code: 500, message: "No command socket found for vmi 7d0e1f2a-aaaa" },
    ],
    [
      "a launcher that fails",
      handler({
        launcher: async () => ({
          ...launcher,
          getGuestInfo: async () => {
            throw new Error("command GetGuestInfo failed with DEADLINE_EXCEEDED: Deadline exceeded");
          },
        }),
      }),
      "GET",
      { code: 500, message: "command GetGuestInfo failed with DEADLINE_EXCEEDED: Deadline exceeded" },
    ],
  ])("refuses %s as upstream", async (_case, subject, method, answer) => {
    expect(await subject.serve(method, target("guestosinfo"))).toEqual(answer);
  });
});
