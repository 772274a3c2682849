// virtctl ssh and scp end to end, as KubeVirt's user guide runs them: the cirros image with a key handed
// to the `cirros` user by cloud-init, and the system's OpenSSH client tunnelled through virtctl's own
// `port-forward --stdio` (the portforward subresource, virt-api, the node's virt-handler, the launcher's
// network namespace) to the guest's sshd (dropbear). scp copies a file in and back out byte for byte.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyObject, eventually, kubectl, runningLauncher, virtctl } from "./harness.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-ssh-scp";
const dir = mkdtempSync(join(tmpdir(), "e2e-ssh-"));
const key = join(dir, "id_ed25519");
// Each boot makes new host keys: nothing is checked or remembered, and ssh's warnings stay quiet.
const sshOptions = [
  "-i",
  key,
  "--local-ssh-opts=-o StrictHostKeyChecking=no",
  "--local-ssh-opts=-o UserKnownHostsFile=/dev/null",
  "--local-ssh-opts=-o LogLevel=ERROR",
];

const ssh = (target: string, command: string) =>
  virtctl(["ssh", target, ...sshOptions, "--command", command]);

beforeAll(
  async () => {
    await promisify(execFile)("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", key]);
    const publicKey = readFileSync(`${key}.pub`, "utf8").trim();
    const userData = ["#cloud-config", "ssh_authorized_keys:", `  - ${publicKey}`, ""].join("\n");
    await applyObject(
      testGuestVM(VM, {
        image: "quay.io/kubevirt/cirros-container-disk-demo:latest",
        cloudInitUserData: userData,
      }),
    );
    await runningLauncher(VM, BOOT_TIMEOUT_MS);
    // sshd comes up late in the guest's boot: until then the tunnel's far end refuses.
    await eventually(
      async () => {
        const probe = await ssh(`cirros@vmi/${VM}`, "true");
        expect(probe.code, probe.stderr).toBe(0);
      },
      BOOT_TIMEOUT_MS,
      5_000,
    );
  },
  BOOT_TIMEOUT_MS * 2 + 30_000,
);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  rmSync(dir, { recursive: true, force: true });
});

describe("virtctl ssh", () => {
  it("runs a command in the guest as the user cloud-init gave the key to, for vmi/ and vm/ targets", async () => {
    const uname = await ssh(`cirros@vmi/${VM}`, "uname -a");
    expect(uname.stderr).toBe("");
    expect(uname.code).toBe(0);
    expect(uname.stdout).toMatch(/^Linux \S+ \S+ .* x86_64 .*GNU\/Linux\n$/);

    const whoami = await ssh(`cirros@vm/${VM}/default`, "id -un; hostname");
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(whoami.stdout).toBe(`cirros\n${VM}\n`);
  }, 120_000);

  it("fails as ssh does for a user the key was not given to", async () => {
    const denied = await ssh(`root@vmi/${VM}`, "true");
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Permission denied/);
    expect(denied.stderr).toContain("exit status 255");
  }, 120_000);
});

describe("virtctl scp", () => {
  it("copies a file into the guest and back out unchanged", async () => {
    const original = join(dir, "payload.bin");
    const copy = join(dir, "payload.back");
    const payload = randomBytes(256 * 1024);
    writeFileSync(original, payload);

    const upload = await virtctl(["scp", ...sshOptions, original, `cirros@vmi/${VM}:payload.bin`]);
    expect(upload.code, upload.stderr).toBe(0);
    // The guest holds exactly those bytes, in the user's home.
    const listed = await ssh(`cirros@vmi/${VM}`, "wc -c < ~/payload.bin");
    expect(listed.stdout.trim()).toBe(String(payload.length));

    const download = await virtctl(["scp", ...sshOptions, `cirros@vm/${VM}:payload.bin`, copy]);
    expect(download.code, download.stderr).toBe(0);
    expect(readFileSync(copy).equals(payload)).toBe(true);
  }, 180_000);
});
