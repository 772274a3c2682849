// The system's OpenSSH client (openssh-client) against a test guest's forwarded ssh port: commands
// with a key or a password, no host key checking (each boot makes new host keys), nothing read
// from or written to ~/.ssh.
import { execFile } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

export type SshAuth = { key: string } | { password: string };

export interface SshTarget {
  port: number;
  user: string;
  auth: SshAuth;
  /** A folder for the askpass helper a password login needs. */
  workDir: string;
}

/** A TCP port on 127.0.0.1 nothing listens on right now (for QEMU's hostfwd). */
export async function freeLocalPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port from listen(0)");
  return address.port;
}

/** Makes an ed25519 key pair (no passphrase) at `file`, `file.pub`; returns the public key line. */
export async function makeSshKey(file: string): Promise<string> {
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "kubevirt-ts-boot-test", "-f", file]);
  return (await readFile(`${file}.pub`, "utf8")).trim();
}

function sshArgs(target: SshTarget): string[] {
  const common = [
    ...["-p", String(target.port)],
    ...["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"],
    ...["-o", "ConnectTimeout=20", "-F", "/dev/null"],
  ];
  const auth =
    "key" in target.auth
      ? ["-i", target.auth.key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"]
      : [
          "-o",
          "PubkeyAuthentication=no",
          "-o",
          "PreferredAuthentications=password",
          "-o",
          "NumberOfPasswordPrompts=1",
        ];
  return [...common, ...auth, `${target.user}@127.0.0.1`];
}

/** Runs `command` over ssh; rejects with ssh's stderr if ssh or the command fails. */
export async function sshRun(target: SshTarget, command: string, timeoutMs = 60_000): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if ("password" in target.auth) {
    // OpenSSH reads passwords only from a terminal or an askpass program.
    const askpass = path.join(target.workDir, "ssh-askpass");
    await writeFile(askpass, '#!/bin/sh\nprintf "%s\\n" "$KVTS_SSH_PASSWORD"\n');
    await chmod(askpass, 0o755);
    Object.assign(env, {
      SSH_ASKPASS: askpass,
      SSH_ASKPASS_REQUIRE: "force",
      KVTS_SSH_PASSWORD: target.auth.password,
    });
  }
  const { stdout } = await run("ssh", [...sshArgs(target), command], { env, timeout: timeoutMs });
  return stdout;
}

/** sshRun, tried again while the guest's sshd may still be coming up (connection refused/reset). */
export async function sshRunWhenUp(target: SshTarget, command: string, timeoutMs = 60_000): Promise<string> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await sshRun(target, command, timeoutMs);
    } catch (error) {
      const message = String((error as { stderr?: string }).stderr ?? error);
      const notUp = /Connection (refused|reset|closed)|kex_exchange_identification/.test(message);
      if (!notUp || performance.now() > deadline) throw error;
      await sleep(1_000);
    }
  }
}
