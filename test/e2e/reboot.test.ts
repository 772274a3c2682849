// Soft reboot, reset and freeze end to end, through virt-api, the node's virt-handler and the launcher. The
// test guest runs qemu-guest-agent: its soft reboot goes through the agent, and freeze/unfreeze show in the
// VMI's status.fsFreezeStatus. The alpine demo image's stand-in has no agent (as upstream's has none):
// libvirt presses its ACPI power button instead, and a freeze is refused with libvirt's reason, as upstream
// refuses it. Each guest boots again — its console prints the boot banner and the next boot count — while
// its VMI stays Running in the same launcher pod and QEMU process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyObject,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  qemuPids,
  runningLauncher,
  virtctl,
} from "./harness.js";
import { TEST_GUEST_IMAGE, testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const BANNER = /kubevirt-ts test guest: up/;

interface Guest {
  vm: string;
  image: string;
  /** What the console shows once the guest is up: a shell, or a login prompt. */
  ready: RegExp;
  launcher: string;
  qemu: number[];
  console: ConsoleSession;
}

const withAgent: Guest = {
  vm: "e2e-reboot",
  image: TEST_GUEST_IMAGE,
  ready: /root@[\w-]+:~# /,
  launcher: "",
  qemu: [],
  console: undefined as unknown as ConsoleSession,
};
const withoutAgent: Guest = {
  vm: "e2e-reboot-acpi",
  image: "quay.io/kubevirt/alpine-container-disk-demo:v1.8.4",
  ready: / login: /,
  launcher: "",
  qemu: [],
  console: undefined as unknown as ConsoleSession,
};
const GUESTS = [withAgent, withoutAgent];

beforeAll(async () => {
  await Promise.all(
    GUESTS.map(async (guest) => {
      await applyObject(testGuestVM(guest.vm, { image: guest.image }));
      guest.launcher = await runningLauncher(guest.vm, BOOT_TIMEOUT_MS);
      guest.qemu = await qemuPids(guest.vm);
      expect(guest.qemu).toHaveLength(1);
      guest.console = new ConsoleSession(guest.vm);
      await guest.console.expect(guest.ready, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
    }),
  );
  await eventually(
    async () =>
      expect(
        await jsonpath("vmi", withAgent.vm, '{.status.conditions[?(@.type=="AgentConnected")].status}'),
      ).toBe("True"),
    120_000,
    1_000,
  );
}, BOOT_TIMEOUT_MS + 180_000);

afterAll(async () => {
  for (const guest of GUESTS) {
    await guest.console?.close();
    await kubectl(["delete", "vm", guest.vm, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  }
});

/** Samples the VMI's phase until `done` settles; the phases seen, in order, without repeats. */
async function phasesWhile(vm: string, done: Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    const phase = await jsonpath("vmi", vm, "{.status.phase}");
    if (seen.at(-1) !== phase) seen.push(phase);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await done;
  return seen;
}

/** The guest booted again after `from` in the console transcript, and is up; the transcript since `from`. */
async function bootedAgain(guest: Guest, from: number): Promise<string> {
  await guest.console.expect(BANNER, BOOT_TIMEOUT_MS, { from });
  const banner = from + guest.console.transcript.slice(from).search(BANNER);
  await guest.console.expect(guest.ready, 120_000, { from: banner, pokeMs: 3_000 });
  return guest.console.transcript.slice(from);
}

/** The boot count the guest printed last (`kubevirt-ts test guest: boot N`). */
const lastBootCount = (transcript: string): number =>
  Number([...transcript.matchAll(/kubevirt-ts test guest: boot (\d+)/g)].at(-1)?.[1] ?? Number.NaN);

/** Runs `command` on `guest`, which reboots in place: same launcher, same QEMU, VMI Running throughout. */
async function rebootsInPlace(guest: Guest, command: string[]): Promise<string> {
  const from = guest.console.transcript.length;
  const answer = await virtctl(command);
  expect(answer.stderr).toBe("");
  const rebooted = bootedAgain(guest, from);
  expect(await phasesWhile(guest.vm, rebooted)).toEqual(["Running"]);
  const transcript = await rebooted;
  expect(await runningLauncher(guest.vm, 10_000)).toBe(guest.launcher);
  expect(await qemuPids(guest.vm)).toEqual(guest.qemu);
  expect(lastBootCount(transcript)).toBeGreaterThan(lastBootCount(guest.console.transcript.slice(0, from)));
  return transcript;
}

/** The messages of this VMI's events with `reason` (by uid: a kept cluster still has an earlier run's VMI's). */
async function eventMessages(vm: string, reason: string): Promise<string> {
  const uid = await jsonpath("vmi", vm, "{.metadata.uid}");
  return kubectlOk([
    "get",
    "events",
    "--field-selector",
    `involvedObject.kind=VirtualMachineInstance,involvedObject.uid=${uid},reason=${reason}`,
    "-o",
    "jsonpath={.items[*].message}",
  ]);
}

describe("virtctl soft-reboot and reset of a running VM", () => {
  it(
    "soft-reboot with a guest agent: the agent reboots the guest, in the same QEMU",
    async () => {
      const transcript = await rebootsInPlace(withAgent, ["soft-reboot", withAgent.vm]);
      expect(transcript).not.toContain("ACPI power button pressed");
      expect(await eventMessages(withAgent.vm, "SoftRebooted")).toBe("VirtualMachineInstance soft rebooted");
    },
    2 * BOOT_TIMEOUT_MS,
  );

  it(
    "soft-reboot without an agent: the guest powers off by the ACPI button and boots again in the same QEMU",
    async () => {
      const transcript = await rebootsInPlace(withoutAgent, ["soft-reboot", withoutAgent.vm]);
      // An orderly reboot: the guest saw the power button and shut down before it came up again.
      expect(transcript.indexOf("ACPI power button pressed")).toBeGreaterThanOrEqual(0);
      expect(transcript.indexOf("shutting down")).toBeLessThan(transcript.search(BANNER));
    },
    2 * BOOT_TIMEOUT_MS,
  );

  it(
    "reset: the guest restarts at once, without shutting down, in the same QEMU",
    async () => {
      const transcript = await rebootsInPlace(withAgent, ["reset", withAgent.vm]);
      expect(transcript.slice(0, transcript.search(BANNER))).not.toContain("shutting down");
      expect(await eventMessages(withAgent.vm, "Reset")).toBe("VirtualMachineInstance reset");
    },
    2 * BOOT_TIMEOUT_MS,
  );
});

const freezePath = (vm: string, verb: "freeze" | "unfreeze") =>
  `/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/${vm}/${verb}`;
const put = (vm: string, verb: "freeze" | "unfreeze", body: string) =>
  kubectl(["replace", "--raw", freezePath(vm, verb), "-f", "-"], { input: body });

describe("freeze and unfreeze", () => {
  it("with the guest agent: the VMI shows the filesystems frozen, then thawed", async () => {
    const frozen = await put(withAgent.vm, "freeze", JSON.stringify({ unfreezeTimeout: "5m" }));
    expect(frozen.stderr).toBe("");
    expect(frozen.code).toBe(0);
    await eventually(
      async () => expect(await jsonpath("vmi", withAgent.vm, "{.status.fsFreezeStatus}")).toBe("frozen"),
      60_000,
      1_000,
    );
    const thawed = await put(withAgent.vm, "unfreeze", "{}");
    expect(thawed.stderr).toBe("");
    await eventually(
      async () => expect(await jsonpath("vmi", withAgent.vm, "{.status.fsFreezeStatus}")).toBe(""),
      60_000,
      1_000,
    );
  }, 180_000);

  it("without an agent: refused with libvirt's reason, as upstream refuses it, and the guest keeps running", async () => {
    const vm = withoutAgent.vm;
    const refused = await put(vm, "freeze", JSON.stringify({ unfreezeTimeout: "5m" }));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `Error from server (InternalError): Internal error occurred: unexpected return code 400 (400 Bad Request), message: server error. command Freeze failed: "LibvirtError(Code=86, Domain=10, Message='Guest agent is not responding: QEMU guest agent is not connected')"`,
    );
    expect(await eventMessages(vm, "FreezeError")).toContain(
      "Failed to freeze VMI: server error. command Freeze failed",
    );
    expect(await jsonpath("vmi", vm, "{.status.phase}")).toBe("Running");
    expect(await jsonpath("vmi", vm, "{.status.fsFreezeStatus}")).toBe("");
  });

  it("a malformed unfreezeTimeout is a BadRequest naming it", async () => {
    const refused = await put(withAgent.vm, "freeze", JSON.stringify({ unfreezeTimeout: "five minutes" }));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `Error from server (BadRequest): Can not unmarshal Request body to struct, error: unfreezeTimeout: time: invalid duration "five minutes"`,
    );
  });
});
