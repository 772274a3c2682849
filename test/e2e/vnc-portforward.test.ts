// VNC, the VNC screenshot and port-forward end to end on a running VM. `virtctl vnc --proxy-only` gives a
// local port where an RFB client (written here: ProtocolVersion, security None, ClientInit,
// FramebufferUpdateRequest) reads a framebuffer update of the guest's display through virt-api, the node's
// virt-handler and QEMU's VNC socket in the launcher pod. `virtctl vnc screenshot --file` writes a PNG
// whose chunks check out and whose pixels show the text written to the guest's display. `virtctl
// port-forward vm/NAME` reaches busybox httpd started in the guest from its serial console (ssh-scp.test.ts
// rides the same tunnel).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeConfig } from "@kubernetes/client-node";
import { SubresourceClient } from "../../pkg/virtctl/kubecli/subresources.js";
import {
  ConsoleSession,
  applyObject,
  cluster,
  eventually,
  jsonpath,
  kubectl,
  processPids,
  qemuPids,
  runningLauncher,
  virtctl,
  VIRTCTL,
} from "./harness.js";
import { brightPixels, decodePNG } from "../support/png.js";
import { testGuestVM } from "./test-guest-vm.js";

const BOOT_TIMEOUT_MS = 240_000;
const VM = "e2e-vnc-portforward";
const PAGE = "served-through-virtctl-port-forward";
const dir = mkdtempSync(join(tmpdir(), "e2e-vnc-"));

/** A long-running virtctl (vnc, port-forward) with its output in the test's hands. */
class Virtctl {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number>;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [VIRTCTL, "--kubeconfig", cluster.adminKubeconfig, ...args]);
    this.child.stdout.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code ?? 1)));
  }

  async waitFor(stream: "stdout" | "stderr", pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this[stream].match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`virtctl never printed ${pattern}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<number> {
    this.child.kill("SIGINT");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** Reads exact byte counts off a socket. */
class Reader {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private ended = false;

  constructor(socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on("close", () => {
      this.ended = true;
      this.waiting?.();
    });
  }

  async read(count: number, timeoutMs = 30_000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffered.length < count) {
      if (this.ended) throw new Error(`connection closed after ${this.buffered.length} of ${count} bytes`);
      if (Date.now() > deadline) throw new Error(`only ${this.buffered.length} of ${count} bytes arrived`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 500);
      });
    }
    const bytes = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    return bytes;
  }
}

interface Framebuffer {
  version: string;
  width: number;
  height: number;
  bitsPerPixel: number;
  name: string;
  rectangles: { x: number; y: number; width: number; height: number; encoding: number; pixels: number }[];
}

/** RFB 3.8 (RFC 6143) as a viewer speaks it, up to one full framebuffer update in Raw encoding. */
async function readFramebuffer(port: number): Promise<Framebuffer> {
  const socket = net.connect(port, "127.0.0.1");
  const reader = new Reader(socket);
  try {
    const version = (await reader.read(12)).toString("latin1");
    socket.write("RFB 003.008\n");
    const typeCount = (await reader.read(1)).readUInt8(0);
    if (typeCount === 0) {
      const length = (await reader.read(4)).readUInt32BE(0);
      throw new Error(`server refused: ${(await reader.read(length)).toString()}`);
    }
    const types = [...(await reader.read(typeCount))];
    expect(types).toContain(1); // None: QEMU's socket for virt-handler needs no password
    socket.write(Buffer.from([1]));
    expect((await reader.read(4)).readUInt32BE(0)).toBe(0); // SecurityResult OK
    socket.write(Buffer.from([1])); // ClientInit: shared
    const init = await reader.read(24);
    const width = init.readUInt16BE(0);
    const height = init.readUInt16BE(2);
    const bitsPerPixel = init.readUInt8(4);
    const name = (await reader.read(init.readUInt32BE(20))).toString();
    // SetEncodings: Raw only, so the size of every rectangle is known.
    socket.write(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0]));
    // FramebufferUpdateRequest: the whole screen, not incremental.
    const request = Buffer.alloc(10);
    request.writeUInt8(3, 0);
    request.writeUInt8(0, 1);
    request.writeUInt16BE(width, 6);
    request.writeUInt16BE(height, 8);
    socket.write(request);
    // Skip what may come first (bell, colour map, cut text) until the update itself.
    for (;;) {
      const type = (await reader.read(1)).readUInt8(0);
      if (type === 0) break;
      if (type === 2) continue; // Bell
      if (type === 3) {
        const header = await reader.read(7);
        await reader.read(header.readUInt32BE(3));
        continue;
      }
      throw new Error(`unexpected server message ${type}`);
    }
    const count = (await reader.read(3)).readUInt16BE(1);
    const rectangles: Framebuffer["rectangles"] = [];
    for (let i = 0; i < count; i++) {
      const header = await reader.read(12);
      const rectangle = {
        x: header.readUInt16BE(0),
        y: header.readUInt16BE(2),
        width: header.readUInt16BE(4),
        height: header.readUInt16BE(6),
        encoding: header.readInt32BE(8),
        pixels: 0,
      };
      if (rectangle.encoding === 0) {
        const bytes = rectangle.width * rectangle.height * (bitsPerPixel / 8);
        await reader.read(bytes, 60_000);
        rectangle.pixels = rectangle.width * rectangle.height;
      } else if (rectangle.encoding !== -223) {
        // Pseudo-encodings other than DesktopSize carry data we did not ask for.
        throw new Error(`rectangle in encoding ${rectangle.encoding}`);
      }
      rectangles.push(rectangle);
    }
    return { version, width, height, bitsPerPixel, name, rectangles };
  } finally {
    socket.destroy();
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One HTTP/1.0 GET through a local port; the whole answer. */
function httpGet(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    let text = "";
    socket.setTimeout(30_000, () => socket.destroy(new Error(`no answer; so far: ${text}`)));
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

/** `attempt` again while the local port refuses connections (for up to 10 s). */
async function eventuallyListening<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ECONNREFUSED" || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

beforeAll(async () => {
  await applyObject(testGuestVM(VM));
  await runningLauncher(VM, BOOT_TIMEOUT_MS);
  // Boot to the shell, then serve a page on 8080 from the guest.
  const console = new ConsoleSession(VM);
  try {
    await console.expect(/root@[\w-]+:~# /, BOOT_TIMEOUT_MS, { pokeMs: 3_000 });
    const from = console.transcript.length;
    console.type(
      `mkdir -p /tmp/www && echo ${PAGE} > /tmp/www/index.html && httpd -p 8080 -h /tmp/www && echo httpd-$((40+2))-up\r`,
    );
    await console.expect(/httpd-42-up/, 30_000, { from });
  } finally {
    await console.close();
  }
}, BOOT_TIMEOUT_MS * 2);

afterAll(async () => {
  await kubectl(["delete", "vm", VM, "--ignore-not-found", "--wait=true", "--timeout=120s"]);
  rmSync(dir, { recursive: true, force: true });
});

describe("virtctl vnc", () => {
  it("--proxy-only gives a port where an RFB client reads the guest's framebuffer", async () => {
    const vnc = new Virtctl(["vnc", "--proxy-only", VM]);
    try {
      const [, port] = await vnc.waitFor("stdout", /^\{"port":(\d+)\}\n/, 60_000);
      const framebuffer = await readFramebuffer(Number(port));
      expect(framebuffer.version).toBe("RFB 003.008\n");
      expect(framebuffer.width).toBeGreaterThan(0);
      expect(framebuffer.height).toBeGreaterThan(0);
      expect(framebuffer.name).toContain(VM);
      const covered = framebuffer.rectangles.reduce((sum, r) => sum + r.pixels, 0);
      expect(covered).toBe(framebuffer.width * framebuffer.height);
      // The viewer left: virtctl vnc is done, as upstream's.
      expect(await vnc.exited).toBe(0);
    } finally {
      if (vnc.child.exitCode === null) await vnc.stop();
    }
  }, 180_000);

  it("screenshot --file writes a PNG that shows the text on the guest's console", async () => {
    const screenshot = async (name: string) => {
      const file = join(dir, name);
      const shot = await virtctl(["vnc", "screenshot", VM, "--file", file]);
      expect(shot.stderr).toBe("");
      expect(shot.code).toBe(0);
      return decodePNG(readFileSync(file));
    };
    // The guest's display is its first virtual terminal (console=tty0): clear it, then fill it with text,
    // from the serial console.
    const console = new ConsoleSession(VM);
    try {
      await console.expect(/root@[\w-]+:~# /, 60_000, { pokeMs: 3_000 });
      let from = console.transcript.length;
      console.type("dmesg -n 1; printf '\\033[H\\033[2J' > /dev/tty0 && echo cleared-$((1+1))\r");
      await console.expect(/cleared-2/, 30_000, { from });
      const blank = await screenshot("blank.png");
      from = console.transcript.length;
      console.type(
        "for i in $(seq 1 20); do echo '#### kubevirt-ts screenshot ####'; done > /dev/tty0 && echo wrote-$((2+1))\r",
      );
      await console.expect(/wrote-3/, 30_000, { from });
      const text = await screenshot("text.png");
      expect(text.width).toBe(blank.width);
      expect(text.height).toBe(blank.height);
      // Twenty lines of 32 characters: each glyph lights a few dozen pixels in QEMU's VGA font.
      expect(brightPixels(blank)).toBeLessThan(500);
      expect(brightPixels(text) - brightPixels(blank)).toBeGreaterThan(20 * 32 * 15);
    } finally {
      await console.close();
    }
  }, 120_000);
  it("leaves no file descriptors behind in virt-handler or QEMU after 200 VNC connects and disconnects", async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cluster.adminKubeconfig);
    const server = kubeConfig.getCurrentCluster()?.server ?? "";
    const client = new SubresourceClient({ kubeConfig, server, namespace: "default", overridden: false });
    const path = client.subresourcePath("virtualmachineinstances", VM, "vnc");
    /** One viewer that reads the server's RFB greeting and hangs up without a word. */
    const connectAndLeave = async () => {
      const socket = await client.dial(path);
      await new Promise<void>((resolve, reject) => {
        socket.once("message", (data: Buffer) =>
          data.toString("latin1").startsWith("RFB ") ? resolve() : reject(new Error(`greeting ${data}`)),
        );
        socket.once("close", () => reject(new Error("closed before the RFB greeting")));
      });
      socket.terminate();
    };
    const node = await jsonpath("vmi", VM, "{.status.nodeName}");
    const [handler] = await processPids(
      (argv) =>
        argv.some((arg) => arg.includes("virt-handler")) &&
        argv.join(" ").includes(`--hostname-override ${node}`),
    );
    const [qemu] = await qemuPids(VM);
    if (handler === undefined || qemu === undefined) throw new Error(`no virt-handler on ${node} or no QEMU`);
    const openFiles = async () => ({
      handler: (await readdir(`/proc/${handler}/fd`)).length,
      qemu: (await readdir(`/proc/${qemu}/fd`)).length,
    });
    // The first connections set up what stays (TLS sessions, the dialer's pools).
    for (let i = 0; i < 5; i++) await connectAndLeave();
    const before = await openFiles();
    for (let i = 0; i < 200; i++) await connectAndLeave();
    // Hang-ups are noticed asynchronously along the chain: give them a moment to settle.
    await eventually(
      async () => {
        const after = await openFiles();
        expect(after.handler, `virt-handler fds, ${before.handler} before`).toBeLessThanOrEqual(
          before.handler + 5,
        );
        expect(after.qemu, `QEMU fds, ${before.qemu} before`).toBeLessThanOrEqual(before.qemu);
      },
      30_000,
      1_000,
    );
  }, 300_000);
});

describe("virtctl port-forward", () => {
  it("forwards a local port to a port the guest listens on, for vm/ and vmi/ targets", async () => {
    for (const target of [`vm/${VM}`, `vmi/${VM}/default`]) {
      const local = await freePort();
      const forward = new Virtctl(["port-forward", target, `${local}:8080`]);
      try {
        await forward.waitFor(
          "stderr",
          new RegExp(`forwarding tcp 127\\.0\\.0\\.1:${local} to 8080`),
          60_000,
        );
        // virtctl says "forwarding" before it listens, as upstream's does: on a busy machine the port opens a moment later
        const answer = await eventuallyListening(() => httpGet(local, "/"));
        expect(answer).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
        expect(answer).toContain(PAGE);
        // A second connection gets a tunnel of its own.
        expect(await httpGet(local, "/index.html")).toContain(PAGE);
      } finally {
        expect(await forward.stop(), forward.stderr).toBe(0);
      }
    }
  }, 180_000);

  it("says why when nothing listens on the guest's port", async () => {
    const local = await freePort();
    const forward = new Virtctl(["port-forward", `vm/${VM}`, `${local}:8081`]);
    try {
      await forward.waitFor("stderr", /forwarding tcp/, 60_000);
      // The local connection is dropped, with nothing from the guest.
      const closed = await httpGet(local, "/").catch((error: unknown) => String(error));
      expect(closed).not.toContain(PAGE);
      await forward.waitFor("stderr", /can't access vm\/e2e-vnc-portforward\.default: .*dialing VM/, 30_000);
    } finally {
      await forward.stop();
    }
  }, 120_000);
});
