// Soft reboot and reset end to end: `virtctl soft-reboot` (no guest agent, so libvirt presses the ACPI
// power button and restarts the guest in place when it powers off) and `virtctl reset` (the reset button)
// go through virt-api, the node's virt-handler and the launcher; the guest boots again — its console prints
// the boot banner once more — while the VMI stays Running in the same launcher pod and QEMU process.
// A freeze needs the guest agent, which the test guest does not run yet: it is refused with libvirt's
// reason, as upstream refuses it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConsoleSession,
  applyYAML,
  jsonpath,
  kubectl,
  kubectlOk,
  qemuPids,
  runningLauncher,
  virtctl,
} from "./harness.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-reboot";
const BANNER = /kubevirt-ts test guest: up/;
const PROMPT = /root@[\w-]+:~# /;

let launcher: string;
let qemu: number[];
let console: ConsoleSession;

beforeAll(async () => {
  await applyYAML(`
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: { name: ${VM} }
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        devices:
          disks: [{ name: containerdisk, disk: { bus: virtio } }]
        memory: { guest: 128Mi }
      terminationGracePeriodSeconds: 5
      volumes:
        - name: containerdisk
          containerDisk: { image: kubevirt-ts/test-guest:latest }
`);
  launcher = await runningLauncher(VM, BOOT_TIMEOUT_MS);
  qemu = await qemuPids(VM);
  expect(qemu).toHaveLength(1);
  console = new ConsoleSession(VM);
  await console.expect(PROMPT, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
}, BOOT_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await console?.close();
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
});

/** Samples the VMI's phase until `done` settles; the phases seen, in order, without repeats. */
async function phasesWhile(done: Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    const phase = await jsonpath("vmi", VM, "{.status.phase}");
    if (seen.at(-1) !== phase) seen.push(phase);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await done;
  return seen;
}

/** The guest booted again after `from` in the console transcript, and reached its shell. */
async function bootedAgain(from: number): Promise<string> {
  await console.expect(BANNER, BOOT_TIMEOUT_MS, { from });
  const banner = from + console.transcript.slice(from).search(BANNER);
  await console.expect(PROMPT, 120_000, { from: banner, pokeMs: 3_000 });
  return console.transcript.slice(from);
}

async function expectSameLauncherAndQemu(): Promise<void> {
  expect(await runningLauncher(VM, 10_000)).toBe(launcher);
  expect(await qemuPids(VM)).toEqual(qemu);
}

const eventMessages = (reason: string) =>
  kubectlOk([
    "get",
    "events",
    "--field-selector",
    `involvedObject.kind=VirtualMachineInstance,involvedObject.name=${VM},reason=${reason}`,
    "-o",
    "jsonpath={.items[*].message}",
  ]);

describe("virtctl soft-reboot and reset of a running VM", () => {
  it(
    "soft-reboot: the guest powers off by the ACPI button and boots again in the same QEMU",
    async () => {
      const from = console.transcript.length;
      const answer = await virtctl(["soft-reboot", VM]);
      expect(answer.stderr).toBe("");
      expect(answer.stdout).toBe(`VMI ${VM} was scheduled to soft-reboot\n`);
      const rebooted = bootedAgain(from);
      expect(await phasesWhile(rebooted)).toEqual(["Running"]);
      const transcript = await rebooted;
      // An orderly reboot: the guest saw the power button and shut down before it came up again.
      expect(transcript.indexOf("ACPI power button pressed")).toBeGreaterThanOrEqual(0);
      expect(transcript.indexOf("shutting down")).toBeLessThan(transcript.search(BANNER));
      await expectSameLauncherAndQemu();
      expect(await eventMessages("SoftRebooted")).toBe("VirtualMachineInstance soft rebooted");
    },
    2 * BOOT_TIMEOUT_MS,
  );

  it(
    "reset: the guest restarts at once, without shutting down, in the same QEMU",
    async () => {
      const from = console.transcript.length;
      const answer = await virtctl(["reset", VM]);
      expect(answer.stderr).toBe("");
      expect(answer.stdout).toBe(`VMI ${VM} was scheduled to reset\n`);
      const rebooted = bootedAgain(from);
      expect(await phasesWhile(rebooted)).toEqual(["Running"]);
      const transcript = await rebooted;
      expect(transcript.slice(0, transcript.search(BANNER))).not.toContain("shutting down");
      await expectSameLauncherAndQemu();
      expect(await eventMessages("Reset")).toBe("VirtualMachineInstance reset");
    },
    2 * BOOT_TIMEOUT_MS,
  );
});

describe("freeze of a guest without agent", () => {
  const freeze = (body: string) =>
    kubectl(
      [
        "replace",
        "--raw",
        `/apis/subresources.kubevirt.io/v1/namespaces/default/virtualmachineinstances/${VM}/freeze`,
        "-f",
        "-",
      ],
      { input: body },
    );

  it("is refused with libvirt's reason, as upstream refuses it, and the guest keeps running", async () => {
    const refused = await freeze(JSON.stringify({ unfreezeTimeout: "5m" }));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `Error from server (InternalError): Internal error occurred: unexpected return code 400 (400 Bad Request), message: server error. command Freeze failed: "LibvirtError(Code=86, Domain=10, Message='Guest agent is not responding: QEMU guest agent is not connected')"`,
    );
    expect(await eventMessages("FreezeError")).toContain(
      "Failed to freeze VMI: server error. command Freeze failed",
    );
    expect(await jsonpath("vmi", VM, "{.status.phase}")).toBe("Running");
    expect(await jsonpath("vmi", VM, "{.status.fsFreezeStatus}")).toBe("");
  });

  it("a malformed unfreezeTimeout is a BadRequest naming it", async () => {
    const refused = await freeze(JSON.stringify({ unfreezeTimeout: "five minutes" }));
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `Error from server (BadRequest): Can not unmarshal Request body to struct, error: unfreezeTimeout: time: invalid duration "five minutes"`,
    );
  });
});
