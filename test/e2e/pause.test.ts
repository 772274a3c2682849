// Pause and unpause end to end: `virtctl pause vm` goes through virt-api's VMI subresource and the node's
// virt-handler to the launcher, libvirt suspends the domain, and the VMI gets upstream's Paused condition
// while its phase stays Running; the VM reads Paused in `kubectl get vm`. A second pause is refused with
// upstream's Conflict, and unpause brings the guest and the status back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  conditionOf,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  virtctl,
  runningLauncher,
  vmStatusColumn,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-pause";
const SERVICE = "e2e-pause-ssh";
let launcher: string;

const domState = () =>
  kubectl(["exec", launcher, "-c", "compute", "--", "virsh", "domstate", "1", "--reason"]);
const pausedCondition = () => conditionOf("vmi", VM, "Paused");

beforeAll(async () => {
  await applyObject(testGuestVM(VM));
  launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS);
}, BOOT_TIMEOUT_MS + 30_000);

afterAll(async () => {
  await kubectl(["delete", "service", SERVICE, "--ignore-not-found"]);
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

/** The guest's own clock (seconds since its boot, /proc/uptime) and the host's, read together. */
async function guestUptime(session: ConsoleSession): Promise<{ guest: number; host: number }> {
  const from = session.transcript.length;
  session.type("echo UP $(cut -d' ' -f1 /proc/uptime) PU\r");
  const line = await session.expect(/UP (\d+\.\d+) PU/, 60_000, { from });
  return { guest: Number(/UP (\d+\.\d+)/.exec(line)?.[1]), host: Date.now() / 1000 };
}

describe("virtctl pause and unpause of a running VM", () => {
  it("pauses the guest, reports Paused, refuses a second pause, and unpauses back to Running", async () => {
    const session = new ConsoleSession(VM);
    await session.expect(/root@[\w-]+:~# /, 120_000, { pokeMs: 3_000 });
    const before = await guestUptime(session);
    const pause = await virtctl(["pause", "vm", VM]);
    expect(pause.stderr).toBe("");
    expect(pause.stdout.trim()).toBe(`VMI ${VM} was scheduled to pause`);

    await eventually(async () => expect(await pausedCondition()).toBe("True/PausedByUser"), 60_000, 1_000);
    expect(await jsonpath("vmi", VM, '{.status.conditions[?(@.type=="Paused")].message}')).toBe(
      "VMI was paused by user",
    );
    expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
    await eventually(async () => expect(await vmStatusColumn(VM)).toBe("Paused"), 60_000, 1_000);
    // The guest really stopped: libvirt in the launcher holds the domain paused, by the user.
    const state = await domState();
    expect(state.code, state.stderr).toBe(0);
    expect(state.stdout.trim()).toBe("paused (user)");

    const again = await virtctl(["pause", "vmi", VM]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      `Error pausing VirtualMachineInstance ${VM}: Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "${VM}": VMI is already paused`,
    );

    // The guest's clock stands still while it is paused.
    const pausedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const pausedSeconds = (Date.now() - pausedAt) / 1000;
    const unpause = await virtctl(["unpause", "vm", VM]);
    expect(unpause.stderr).toBe("");
    expect(unpause.stdout.trim()).toBe(`VMI ${VM} was scheduled to unpause`);
    await eventually(async () => expect(await pausedCondition()).toBe("/"), 60_000, 1_000);
    await eventually(async () => expect(await vmStatusColumn(VM)).toBe("Running"), 60_000, 1_000);
    expect((await domState()).stdout.trim()).toMatch(/^running/);
    const after = await guestUptime(session);
    await session.close();
    const guestElapsed = after.guest - before.guest;
    const hostElapsed = after.host - before.host;
    expect(guestElapsed).toBeGreaterThan(0);
    expect(guestElapsed).toBeLessThan(hostElapsed - pausedSeconds);

    const notPaused = await virtctl(["unpause", "vmi", VM]);
    expect(notPaused.code).toBe(1);
    expect(notPaused.stderr.trim()).toBe(
      `Error unpausing VirtualMachineInstance ${VM}: Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "${VM}": VMI is not paused`,
    );
  }, 240_000);
});

describe("virtctl expose of the same running VM", () => {
  it("creates a Service whose endpoints are the VM's launcher Pod", async () => {
    const expose = await virtctl([
      "expose",
      "vm",
      VM,
      "--name",
      SERVICE,
      "--port",
      "2222",
      "--target-port",
      "22",
    ]);
    expect(expose.stderr).toBe("");
    expect(expose.stdout.trim()).toBe(`Service ${SERVICE} successfully created for vm ${VM}`);
    const spec = JSON.parse(await kubectlOk(["get", "service", SERVICE, "-o", "jsonpath={.spec}"])) as {
      selector: Record<string, string>;
      ports: { port: number; targetPort: number; protocol: string }[];
    };
    expect(spec.selector).toEqual({ "vmi.kubevirt.io/id": VM });
    expect(spec.ports).toEqual([expect.objectContaining({ port: 2222, targetPort: 22, protocol: "TCP" })]);
    const podIP = await jsonpath("pod", launcher, "{.status.podIP}");
    const sliceAddress = () =>
      kubectlOk([
        "get",
        "endpointslices",
        "-l",
        `kubernetes.io/service-name=${SERVICE}`,
        "-o",
        "jsonpath={.items[0].endpoints[*].addresses[0]}",
      ]);
    await eventually(async () => expect((await sliceAddress()).trim()).toBe(podIP), 60_000, 1_000);

    const again = await virtctl(["expose", "vm", VM, "--name", SERVICE, "--port", "2222"]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`service creation failed: services "${SERVICE}" already exists`);
  }, 120_000);
});
