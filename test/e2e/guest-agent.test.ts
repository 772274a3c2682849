// The guest agent end to end: qemu-guest-agent in the test guest opens its virtio-serial channel, libvirt
// in the launcher reports it connected, the launcher's poller reads the guest through libvirt, and
// virt-handler sets AgentConnected, status.guestOSInfo and the agent's view of the interfaces; virtctl
// guestosinfo / userlist / fslist go through virt-api and the node's virt-handler to the launcher.
// Needs the test guest to run qemu-guest-agent at boot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyObject, eventually, jsonpath, kubectl, runningLauncher, virtctl } from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const AGENT_TIMEOUT_MS = 240_000;
const VM = "e2e-guest-agent";

const condition = (type: string) => jsonpath("vmi", VM, `{.status.conditions[?(@.type=="${type}")].status}`);

beforeAll(
  async () => {
    await applyObject(testGuestVM(VM));
    await runningLauncher(VM, BOOT_TIMEOUT_MS);
    await eventually(
      async () => expect(await condition("AgentConnected")).toBe("True"),
      AGENT_TIMEOUT_MS,
      2_000,
    );
  },
  BOOT_TIMEOUT_MS + AGENT_TIMEOUT_MS + 30_000,
);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("a guest with its agent running", () => {
  it("is reported connected and supported, with its OS in the VMI's status", async () => {
    expect(await condition("AgentConnected")).toBe("True");
    expect(await condition("AgentVersionNotSupported")).toBe("");
    await eventually(
      async () => expect(await jsonpath("vmi", VM, "{.status.guestOSInfo.name}")).not.toBe(""),
      60_000,
      1_000,
    );
    expect(await jsonpath("vmi", VM, "{.status.guestOSInfo.kernelRelease}")).not.toBe("");
  });

  it("merges the agent's view of the pod network interface", async () => {
    await eventually(
      async () => {
        expect(await jsonpath("vmi", VM, "{.status.interfaces[0].infoSource}")).toBe("domain, guest-agent");
        expect(await jsonpath("vmi", VM, "{.status.interfaces[0].interfaceName}")).not.toBe("");
      },
      60_000,
      2_000,
    );
    expect(await jsonpath("vmi", VM, "{.status.interfaces[0].name}")).toBe("default");
  });

  it("virtctl guestosinfo prints the agent's version, host name, OS, time zone and filesystems", async () => {
    const result = await virtctl(["guestosinfo", VM]);
    expect(result.stderr).toBe("");
    const info = JSON.parse(result.stdout) as {
      guestAgentVersion?: string;
      hostname?: string;
      os: { name?: string };
      timezone?: string;
      supportedCommands?: { name: string }[];
      fsInfo: { disks: unknown[] | null };
    };
    expect(info.guestAgentVersion).toMatch(/^\d+\.\d+/);
    expect(info.hostname).toBeTruthy();
    expect(info.os.name).toBeTruthy();
    expect(info.timezone).toMatch(/, -?\d+$/);
    expect(info.supportedCommands?.map((command) => command.name)).toContain("guest-get-osinfo");
    expect(Object.keys(info)[0]).toBe("guestAgentVersion"); // Go's field order
  });

  it("virtctl userlist and fslist print upstream's lists", async () => {
    const users = await virtctl(["userlist", VM]);
    expect(users.stderr).toBe("");
    expect(JSON.parse(users.stdout)).toMatchObject({ metadata: {}, items: expect.any(Array) });
    const filesystems = await virtctl(["fslist", VM]);
    expect(filesystems.stderr).toBe("");
    // What the guest mounts is the guest's business; each entry names its disk and mount point.
    const list = JSON.parse(filesystems.stdout) as {
      metadata: object;
      items: { diskName: string; mountPoint: string }[];
    };
    expect(list.metadata).toEqual({});
    for (const fs of list.items) expect(fs.diskName && fs.mountPoint).toBeTruthy();
  });

  it("a VMI that does not exist is refused in upstream's words", async () => {
    const result = await virtctl(["guestosinfo", "no-such-vmi"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toMatch(
      /^Error getting guestosinfo of VirtualMachineInstance no-such-vmi, an error on the server \("virtualmachineinstance\.kubevirt\.io "no-such-vmi" not found"\) has prevented the request from succeeding/,
    );
  });
});
