// Run strategies end to end, one VM each, side by side: a guest whose QEMU is killed fails its VMI, a
// guest that powers off ends it Succeeded, and the VM controller restarts or keeps it as the strategy
// says (upstream's syncRunStrategy): Always restarts both, RerunOnFailure only the failure, Once neither.
// A VM whose launcher crashes before its guest ever runs backs off between restarts (CrashLoopBackOff,
// status.startFailure); a VMI that ran does not count (upstream), so the killed guests restart at once.
import { Watch } from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { kubeConfig } from "../integration/harness.js";
import {
  ConsoleSession,
  applyObject,
  eventually,
  jsonpath,
  kubectl,
  kubectlOk,
  qemuPids,
} from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 300_000;
const TEST_TIMEOUT_MS = 720_000;
/** How long a VM that must not come back is watched. */
const STAYS_MS = 15_000;

const vm = (name: string, runStrategy: string, annotations?: Record<string, string>) =>
  testGuestVM(name, { runStrategy, cpuRequest: "100m", ...(annotations ? { annotations } : {}) });

/** Every `<uid> <phase>` a VMI of this name went through, as the apiserver's watch told them. */
class PhaseLog {
  readonly seen: string[] = [];
  /** When each `<uid>` and each `<uid> <phase>` was first seen (ms). */
  readonly firstSeen = new Map<string, number>();
  private request: AbortController | undefined;
  private stopped = false;
  private resourceVersion: string | undefined;

  constructor(private readonly name: string) {}

  async start(): Promise<void> {
    const watch = new Watch(await kubeConfig());
    // A watch that ends is resumed where it was, so no phase is missed in between.
    const rewatch = () => {
      if (!this.stopped) void this.start();
    };
    const query: Record<string, string> = { fieldSelector: `metadata.name=${this.name}` };
    if (this.resourceVersion) query["resourceVersion"] = this.resourceVersion;
    this.request = await watch.watch(
      "/apis/kubevirt.io/v1/namespaces/default/virtualmachineinstances",
      query,
      (
        _type,
        vmi: { metadata?: { uid?: string; resourceVersion?: string }; status?: { phase?: string } },
      ) => {
        this.resourceVersion = vmi.metadata?.resourceVersion ?? this.resourceVersion;
        const uid = vmi.metadata?.uid ?? "";
        if (!this.firstSeen.has(uid)) this.firstSeen.set(uid, Date.now());
        const entry = `${uid} ${vmi.status?.phase ?? ""}`;
        if (!this.firstSeen.has(entry)) this.firstSeen.set(entry, Date.now());
        if (this.seen.at(-1) !== entry) this.seen.push(entry);
      },
      (error: unknown) => {
        // 410 Gone: the version is too old to resume from; start over from now.
        if (error && String(error).includes("410")) this.resourceVersion = undefined;
        rewatch();
      },
    );
  }

  stop(): void {
    this.stopped = true;
    this.request?.abort();
  }

  has(uid: string, phase: string): boolean {
    return this.seen.includes(`${uid} ${phase}`);
  }
}

const vmiUID = (name: string) => jsonpath("vmi", name, "{.metadata.uid}");

/** Waits for a Running VMI of `name` other than `previous`, and answers its uid. */
async function runningVMI(name: string, previous?: string): Promise<string> {
  return eventually(
    async () => {
      const [uid = "", phase = ""] = (await jsonpath("vmi", name, "{.metadata.uid} {.status.phase}")).split(
        " ",
      );
      expect(uid).not.toBe(previous ?? "");
      expect(phase).toBe("Running");
      return uid;
    },
    BOOT_TIMEOUT_MS,
    1_000,
  );
}

async function killQemu(name: string): Promise<void> {
  const pid = await eventually(async () => {
    const [found] = await qemuPids(name);
    expect(found).toBeDefined();
    return found!;
  }, 60_000);
  process.kill(pid, "SIGKILL");
}

/** Logs in on the serial console once the guest has booted, and powers it off from inside. */
async function powerOff(name: string): Promise<void> {
  const console = new ConsoleSession(name);
  try {
    await console.expect(/root@[\w-]+:~# /, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
    const from = console.transcript.length;
    console.type("poweroff\r");
    // Closing the console before the guest took the command would leave it running.
    await console.expect(/kubevirt-ts test guest: shutting down/, 120_000, { from });
  } finally {
    await console.close();
  }
}

async function waitForPhase(log: PhaseLog, uid: string, phase: string): Promise<void> {
  await eventually(async () => expect(log.seen).toContain(`${uid} ${phase}`), 120_000, 500);
}

/** The VM neither starts another VMI nor leaves the one it has, for STAYS_MS. */
async function staysAsItEnded(name: string, expected: string): Promise<void> {
  const deadline = Date.now() + STAYS_MS;
  while (Date.now() < deadline) {
    expect(await jsonpath("vmi", name, "{.metadata.uid} {.status.phase}")).toBe(expected);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

const printableStatus = (name: string) => jsonpath("vm", name, "{.status.printableStatus}");
const startFailure = (name: string) =>
  jsonpath(
    "vm",
    name,
    "{.status.startFailure.consecutiveFailCount} {.status.startFailure.retryAfterTimestamp}",
  );

const VMS = {
  always: "e2e-rs-always",
  rerun: "e2e-rs-rerun",
  once: "e2e-rs-once",
  crashing: "e2e-rs-crashloop",
};
const logs = new Map(Object.values(VMS).map((name) => [name, new PhaseLog(name)]));
const logOf = (name: string) => logs.get(name)!;

afterAll(async () => {
  for (const log of logs.values()) log.stop();
  await kubectl([
    "delete",
    "vm",
    ...Object.values(VMS),
    "--ignore-not-found",
    "--wait=true",
    "--timeout=180s",
  ]);
});

describe.concurrent("run strategies", () => {
  it(
    "Always restarts a guest whose QEMU was killed, and one that powered off",
    async () => {
      const name = VMS.always;
      const log = logOf(name);
      await log.start();
      await applyObject(vm(name, "Always"));
      const first = await runningVMI(name);
      await killQemu(name);
      await waitForPhase(log, first, "Failed");
      const second = await runningVMI(name, first);
      // It ran before it failed: no start failure is counted.
      expect(await startFailure(name)).toBe(" ");

      await powerOff(name);
      await waitForPhase(log, second, "Succeeded");
      await runningVMI(name, second);
      // A running guest's Ready condition is the launcher Pod's, without a not-ready reason.
      await eventually(
        async () =>
          expect(
            await jsonpath(
              "vmi",
              name,
              '{.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}',
            ),
          ).toBe("True/"),
        60_000,
        1_000,
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "RerunOnFailure restarts a guest whose QEMU was killed, but not one that powered off",
    async () => {
      const name = VMS.rerun;
      const log = logOf(name);
      await log.start();
      await applyObject(vm(name, "RerunOnFailure"));
      const first = await runningVMI(name);
      await killQemu(name);
      await waitForPhase(log, first, "Failed");
      const second = await runningVMI(name, first);
      expect(await startFailure(name)).toBe(" ");

      await powerOff(name);
      await waitForPhase(log, second, "Succeeded");
      await eventually(async () => expect(await vmiUID(name)).toBe(""), 120_000, 1_000);
      expect(await printableStatus(name)).toBe("Stopped");
      await staysAsItEnded(name, "");
      expect(await printableStatus(name)).toBe("Stopped");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Once keeps a guest whose QEMU was killed Failed, and one that powered off Succeeded",
    async () => {
      const name = VMS.once;
      const log = logOf(name);
      await log.start();
      await applyObject(vm(name, "Once"));
      const first = await runningVMI(name);
      await killQemu(name);
      await waitForPhase(log, first, "Failed");
      await staysAsItEnded(name, `${first} Failed`);
      expect(await printableStatus(name)).toBe("Stopped");

      // Once starts a VMI whenever there is none: removing the failed one gives the guest another run.
      await kubectlOk(["delete", "vmi", name, "--wait=true", "--timeout=120s"]);
      const second = await runningVMI(name, first);
      await powerOff(name);
      await waitForPhase(log, second, "Succeeded");
      await staysAsItEnded(name, `${second} Succeeded`);
      expect(await printableStatus(name)).toBe("Stopped");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "RerunOnFailure backs off restarting a launcher that crashes before its guest runs",
    async () => {
      const name = VMS.crashing;
      const log = logOf(name);
      await log.start();
      await applyObject(vm(name, "RerunOnFailure", { "kubevirt.io/func-test-virt-launcher-fail-fast": "" }));
      // virt-handler gives a launcher 3 minutes to bring its socket up before its VMI counts as failed.
      const failed = await eventually(
        async () => {
          expect(await printableStatus(name)).toBe("CrashLoopBackOff");
          const [count, at = ""] = (await startFailure(name)).split(" ");
          expect(count).toBe("1");
          const uid = await jsonpath("vm", name, "{.status.startFailure.lastFailedVMIUID}");
          return { uid, retryAfter: Date.parse(at) };
        },
        360_000,
        1_000,
      );
      // The first failure waits 10 s, plus up to half of that at random (the timestamp has whole seconds),
      // counted from when virt-controller saw the failure, which this watch may have seen some seconds
      // earlier on a loaded machine: far below the 300 s cap either way.
      const wait = failed.retryAfter - (log.firstSeen.get(`${failed.uid} Failed`) ?? Number.NaN);
      expect(wait).toBeGreaterThanOrEqual(8_000);
      expect(wait).toBeLessThanOrEqual(60_000);
      const next = await eventually(
        async () => {
          const uid = await vmiUID(name);
          expect(uid).not.toBe("");
          expect(uid).not.toBe(failed.uid);
          return uid;
        },
        120_000,
        500,
      );
      expect(log.firstSeen.get(next)).toBeGreaterThanOrEqual(failed.retryAfter);
      // Every VMI failed before running.
      expect(log.seen.some((entry) => entry.endsWith(" Running"))).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
