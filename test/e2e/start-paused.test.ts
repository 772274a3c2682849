// Starting a VM paused, end to end: `virtctl start --paused` on a halted VM asks virt-api's start
// subresource for a paused start; the VM controller creates the VMI with `startStrategy: Paused`, the
// launcher defines and starts the domain without letting its CPUs run, and the VMI is Running with
// upstream's Paused condition while the VM reads Paused. The guest boots only once it is unpaused.
// A dry run first changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  conditionOf,
  eventually,
  jsonpath,
  kubectl,
  runningLauncher,
  virtctl,
  vmStatusColumn,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-start-paused";

beforeAll(async () => {
  await applyObject(testGuestVM(VM, { runStrategy: "Halted" }));
  await eventually(async () => expect(await vmStatusColumn(VM)).toBe("Stopped"), 60_000, 1_000);
}, 90_000);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

describe("virtctl start --paused", () => {
  it("with --dry-run changes nothing", async () => {
    const dry = await virtctl(["start", "--paused", "--dry-run", VM]);
    expect(dry.stderr).toBe("");
    expect(dry.stdout).toBe(`Dry Run execution\nVM ${VM} was scheduled to start\n`);
    // Give a real start the time it would need to show up: nothing does.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await jsonpath("vm", VM, "{.status.stateChangeRequests}")).toBe("");
    expect((await kubectl(["get", "vmi", VM])).code).toBe(1);
  }, 60_000);

  it(
    "starts the domain paused with the Paused condition, and the guest boots once unpaused",
    async () => {
      const start = await virtctl(["start", "--paused", VM]);
      expect(start.stderr).toBe("");
      expect(start.stdout.trim()).toBe(`VM ${VM} was scheduled to start`);
      const launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS);
      expect(await jsonpath("vmi", VM, "{.spec.startStrategy}")).toBe("Paused");
      await eventually(
        async () => expect(await conditionOf("vmi", VM, "Paused")).toBe("True/PausedByUser"),
        60_000,
        1_000,
      );
      await eventually(async () => expect(await vmStatusColumn(VM)).toBe("Paused"), 60_000, 1_000);
      // The domain never ran: libvirt holds it paused since its start.
      const state = await kubectl(["exec", launcher, "-c", "compute", "--", "virsh", "domstate", "1"]);
      expect(state.stdout.trim()).toBe("paused");

      const unpause = await virtctl(["unpause", "vm", VM]);
      expect(unpause.stdout.trim()).toBe(`VMI ${VM} was scheduled to unpause`);
      await eventually(async () => expect(await conditionOf("vmi", VM, "Paused")).toBe("/"), 60_000, 1_000);
      await eventually(async () => expect(await vmStatusColumn(VM)).toBe("Running"), 60_000, 1_000);
      const session = new ConsoleSession(VM);
      try {
        await session.expect(/root@[\w-]+:~# /, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
      } finally {
        await session.close();
      }
    },
    BOOT_TIMEOUT_MS * 2,
  );
});
