import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../controller/log.js";
import { newCA, newClientKeyPair, toPem } from "../../certificates/triple.js";
import {
  constructProxyKey,
  LibvirtBlockMigrationPort,
  LibvirtDirectMigrationPort,
  sourceUnixFile,
} from "../../util/migration-proxy/keys.js";
import { MigrationProxyManager, SHUTDOWN_REFUSAL } from "./migration-proxy.js";
import type { MigrationTLS } from "./tls.js";
import {
  digestOf,
  exchange,
  fakeLauncherSocket,
  migrationTLSOf,
  newHandlerCertificates,
  type HandlerCertificates,
} from "./testing.js";

const KEY = "6b3f1a52-1d2e-4c8b-9a57-0e3f2a1b4c5d";

let certs: HandlerCertificates;
beforeAll(async () => {
  certs = await newHandlerCertificates();
});

/** Two handlers (both on 127.0.0.1) and the two launchers' run dirs in one temp dir. */
function newPair(
  options: { disableTLS?: boolean; target?: Partial<MigrationTLS>; source?: Partial<MigrationTLS> } = {},
) {
  const common = {
    disableTLS: () => options.disableTLS ?? false,
    bindAddress: "127.0.0.1",
    logger: silentLogger,
  };
  return {
    target: new MigrationProxyManager({ ...common, tls: migrationTLSOf(certs, options.target) }),
    source: new MigrationProxyManager({ ...common, tls: migrationTLSOf(certs, options.source) }),
  };
}

describe("MigrationProxyManager", () => {
  let dir: string;
  let targetRun: string;
  let sourceRun: string;
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "migration-proxy-"));
    targetRun = path.join(dir, "target");
    sourceRun = path.join(dir, "source");
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The target launcher's sockets: libvirt's and the direct (and block) migration ports' ones. */
  async function targetLauncher(behaviour: "echo" | "digest-after-end", block = false) {
    const libvirt = path.join(targetRun, "libvirt-virtqemud-sock");
    const ports = block
      ? [LibvirtDirectMigrationPort, LibvirtBlockMigrationPort]
      : [LibvirtDirectMigrationPort];
    const sockets = [
      libvirt,
      ...ports.map((port) => sourceUnixFile(targetRun, constructProxyKey(KEY, port))),
    ];
    await mkdir(path.join(targetRun, "migrationproxy"), { recursive: true });
    const servers = await Promise.all(sockets.map((socket) => fakeLauncherSocket(socket, behaviour)));
    cleanups.push(async () => {
      await Promise.all(servers.map((server) => server.close()));
    });
    return { sockets, servers };
  }

  async function started(
    options: Parameters<typeof newPair>[0] = {},
    behaviour: "echo" | "digest-after-end" = "echo",
  ) {
    const launcher = await targetLauncher(behaviour, true);
    const { target, source } = newPair(options);
    cleanups.push(
      () => source.stopAll(),
      () => target.stopAll(),
    );
    await target.startTargetListener(KEY, launcher.sockets);
    const ports = target.getTargetListenerPorts(KEY);
    await source.startSourceListener(KEY, "127.0.0.1", ports, sourceRun);
    return { launcher, target, source, ports };
  }

  it("publishes one TCP port per target socket, mapped to the migration port it serves", async () => {
    const { ports, source } = await started();
    expect(Object.values(ports).sort()).toEqual([0, LibvirtDirectMigrationPort, LibvirtBlockMigrationPort]);
    for (const port of Object.keys(ports)) expect(Number(port)).toBeGreaterThan(0);
    expect(source.getSourceListenerFiles(KEY).sort()).toEqual(
      [
        KEY,
        constructProxyKey(KEY, LibvirtDirectMigrationPort),
        constructProxyKey(KEY, LibvirtBlockMigrationPort),
      ]
        .map((key) => sourceUnixFile(sourceRun, key))
        .sort(),
    );
  });

  it.each([
    ["with TLS", false],
    ["with TLS disabled", true],
  ])(
    "carries a large stream both ways from each source socket to its target socket %s",
    async (_name, disableTLS) => {
      const { source } = await started({ disableTLS });
      const payload = randomBytes(24 * 1024 * 1024 + 17);
      for (const file of source.getSourceListenerFiles(KEY)) {
        const echoed = await exchange(file, payload);
        expect(echoed.length).toBe(payload.length);
        expect(echoed.equals(payload)).toBe(true);
      }
    },
  );

  it("keeps the way back open after the source half-closes, and reaches the right launcher socket", async () => {
    const { launcher } = await started({}, "digest-after-end");
    for (const [index, file] of [
      sourceUnixFile(sourceRun, KEY),
      sourceUnixFile(sourceRun, constructProxyKey(KEY, LibvirtDirectMigrationPort)),
      sourceUnixFile(sourceRun, constructProxyKey(KEY, LibvirtBlockMigrationPort)),
    ].entries()) {
      const payload = randomBytes(1024 * 1024 + index);
      expect((await exchange(file, payload)).toString()).toBe(digestOf(payload));
      expect(launcher.servers.map((server) => server.accepted())).toEqual(
        launcher.servers.map((_server, i) => (i <= index ? 1 : 0)),
      );
    }
  });

  it("passes the target's half-close back to the source, which can still send", async () => {
    const libvirt = path.join(targetRun, "virtqemud-sock");
    await mkdir(targetRun, { recursive: true });
    const received = new Promise<Buffer>((resolve) => {
      void fakeLauncherSocket(libvirt, "bye-first", resolve).then((server) => cleanups.push(server.close));
    });
    const { target, source } = newPair();
    cleanups.push(
      () => source.stopAll(),
      () => target.stopAll(),
    );
    await target.startTargetListener(KEY, [libvirt]);
    await source.startSourceListener(KEY, "127.0.0.1", target.getTargetListenerPorts(KEY), sourceRun);
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = netConnect({ path: sourceUnixFile(sourceRun, KEY), allowHalfOpen: true });
      socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
      // Only once the launcher's end arrived does the source write, and then ends too.
      socket.on("end", () => socket.end("after your end", () => resolve(text)));
      socket.on("error", reject);
    });
    expect(answer).toBe("bye");
    expect((await received).toString()).toBe("after your end");
  });

  it("refuses a source whose client certificate comes from another CA", async () => {
    const { ports, launcher } = await started();
    const foreignCA = await newCA("kubevirt.io");
    const foreign = await toPem(
      await newClientKeyPair(foreignCA, { commonName: "kubevirt.io:system:client:migration" }),
    );
    const port = Number(Object.keys(ports)[0]);
    const outcome = await new Promise<string>((resolve) => {
      const socket = tlsConnect({
        host: "127.0.0.1",
        port,
        ca: certs.caBundle,
        cert: foreign.certPem,
        key: foreign.keyPem,
        checkServerIdentity: () => undefined,
      });
      socket.on("secureConnect", () => socket.end("hello"));
      socket.on("data", () => resolve("data"));
      socket.on("error", (error) => resolve(`error: ${error.message}`));
      socket.on("close", () => resolve("closed"));
    });
    // TLS 1.3 lets the client finish its side of the handshake before the server checks its certificate.
    expect(outcome).not.toBe("data");
    expect(launcher.servers.map((server) => server.accepted())).toEqual([0, 0, 0]);
  });

  it("refuses a source through a source handler with a foreign client certificate, and reaches no launcher", async () => {
    const foreignCA = await newCA("kubevirt.io");
    const foreign = await toPem(
      await newClientKeyPair(foreignCA, { commonName: "kubevirt.io:system:client:migration" }),
    );
    const { source, launcher } = await started({ source: { clientCertificates: () => [foreign] } });
    const answer = await exchange(source.getSourceListenerFiles(KEY)[0]!, Buffer.from("hello"));
    expect(answer.length).toBe(0);
    expect(launcher.servers.map((server) => server.accepted())).toEqual([0, 0, 0]);
  });

  it("refuses a client certificate of the right CA but the wrong name", async () => {
    const { source, launcher } = await started({
      target: { clientCommonNameTypes: ["migration"] },
      source: { clientCertificates: () => [certs.handlerClient] },
    });
    expect((await exchange(source.getSourceListenerFiles(KEY)[0]!, Buffer.from("hello"))).length).toBe(0);
    expect(launcher.servers.map((server) => server.accepted())).toEqual([0, 0, 0]);
  });

  it("refuses a target that is not named as virt-handler's serving certificate", async () => {
    const { source, launcher } = await started({
      target: { serverCertificate: () => certs.misnamedServer },
    });
    expect((await exchange(source.getSourceListenerFiles(KEY)[0]!, Buffer.from("hello"))).length).toBe(0);
    expect(launcher.servers.map((server) => server.accepted())).toEqual([0, 0, 0]);
  });

  it("falls back to the older client certificate when the first one cannot be used", async () => {
    // A key that does not belong to its certificate fails on the source itself. A certificate the target
    // refuses cannot be told apart under TLS 1.3 (the client's handshake is over first), as upstream.
    const broken = { certPem: certs.migrationClient.certPem, keyPem: certs.handlerClient.keyPem };
    const { source, launcher } = await started({
      source: { clientCertificates: () => [broken, certs.handlerClient] },
    });
    const payload = randomBytes(4096);
    expect((await exchange(source.getSourceListenerFiles(KEY)[0]!, payload)).equals(payload)).toBe(true);
    expect(launcher.servers.map((server) => server.accepted()).reduce((a, b) => a + b)).toBe(1);
  });

  it("stops per key: listeners closed, source socket files removed, open connections ended", async () => {
    const { source, target, ports } = await started();
    const files = source.getSourceListenerFiles(KEY);
    for (const file of files) expect(existsSync(file)).toBe(true);
    // a connection in the middle of a migration
    const open = netConnect({ path: files[0]!, allowHalfOpen: true });
    open.on("error", () => open.destroy());
    await new Promise((resolve) => open.once("connect", resolve));
    open.write("partial");
    const ended = new Promise((resolve) => open.once("close", resolve));

    await source.stopSourceListener(KEY);
    await target.stopTargetListener(KEY);
    await ended;
    for (const file of files) expect(existsSync(file)).toBe(false);
    expect(source.getSourceListenerFiles(KEY)).toEqual([]);
    expect(target.getTargetListenerPorts(KEY)).toEqual({});
    expect(source.openListenerCount() + target.openListenerCount()).toBe(0);
    for (const port of Object.keys(ports)) {
      const refused = await new Promise<string>((resolve) => {
        const socket = netConnect({ host: "127.0.0.1", port: Number(port) });
        socket.on("connect", () => {
          socket.destroy();
          resolve("connected");
        });
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? ""));
      });
      expect(refused).toBe("ECONNREFUSED");
    }
    // stopping again is harmless
    await source.stopSourceListener(KEY);
    await target.stopTargetListener(KEY);
  });

  it("leaves no socket or listener behind once everything is stopped", async () => {
    const sockets = () =>
      process.getActiveResourcesInfo().filter((kind) => /^(TCP|Pipe)(Server)?Wrap$/.test(kind)).length;
    // Sockets of earlier tests may still be closing: count once the number holds still.
    const settled = async () => {
      let last = -1;
      for (let stable = 0; stable < 3;) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        const now = sockets();
        stable = now === last ? stable + 1 : 0;
        last = now;
      }
      return last;
    };
    const before = await settled();
    const launcher = await targetLauncher("echo", true);
    const { target, source } = newPair();
    await target.startTargetListener(KEY, launcher.sockets);
    await source.startSourceListener(KEY, "127.0.0.1", target.getTargetListenerPorts(KEY), sourceRun);
    const files = source.getSourceListenerFiles(KEY);
    await Promise.all(files.map((file) => exchange(file, randomBytes(256 * 1024))));
    // one connection still open when the proxies stop
    const open = netConnect({ path: files[0]!, allowHalfOpen: true });
    open.on("error", () => open.destroy());
    await new Promise((resolve) => open.once("connect", resolve));
    // the proxy's end of it goes away: the client reads the end of the stream
    const openEnded = new Promise((resolve) => open.once("end", resolve));
    await source.stopAll();
    await target.stopAll();
    await openEnded;
    open.destroy();
    await Promise.all(launcher.servers.map((server) => server.close()));
    expect(await settled()).toBe(before);
  });

  it("does nothing when started again with the same targets, and restarts on changed ones", async () => {
    const { source, target, ports, launcher } = await started();
    await target.startTargetListener(KEY, [...launcher.sockets].reverse());
    expect(target.getTargetListenerPorts(KEY)).toEqual(ports);
    await source.startSourceListener(KEY, "127.0.0.1", ports, sourceRun);
    const files = source.getSourceListenerFiles(KEY);

    // The target launcher moved (a new pod): new sockets, so new listeners on new ports.
    const movedRun = path.join(dir, "moved");
    await mkdir(path.join(movedRun, "migrationproxy"), { recursive: true });
    const moved = [
      path.join(movedRun, "virtqemud-sock"),
      sourceUnixFile(movedRun, constructProxyKey(KEY, LibvirtDirectMigrationPort)),
    ];
    const movedServers = await Promise.all(
      moved.map((socket) => fakeLauncherSocket(socket, "digest-after-end")),
    );
    cleanups.push(async () => {
      await Promise.all(movedServers.map((server) => server.close()));
    });
    await target.startTargetListener(KEY, moved);
    const movedPorts = target.getTargetListenerPorts(KEY);
    expect(Object.values(movedPorts).sort()).toEqual([0, LibvirtDirectMigrationPort]);
    expect(Object.keys(movedPorts).some((port) => port in ports)).toBe(false);
    expect(target.openListenerCount()).toBe(1);

    await source.startSourceListener(KEY, "127.0.0.1", movedPorts, sourceRun);
    const movedFiles = source.getSourceListenerFiles(KEY);
    expect(movedFiles.length).toBe(2);
    // the block migration socket is gone with the listener it belonged to
    for (const file of files.filter((file) => !movedFiles.includes(file)))
      expect(existsSync(file)).toBe(false);
    const payload = randomBytes(65536);
    for (const file of movedFiles) expect((await exchange(file, payload)).toString()).toBe(digestOf(payload));
    expect(movedServers.map((server) => server.accepted())).toEqual([1, 1]);
    expect(launcher.servers.map((server) => server.accepted())).toEqual([0, 0, 0]);
  });

  it("refuses new listeners once a graceful shutdown began, and keeps counting the open ones", async () => {
    const { source, target, ports, launcher } = await started();
    source.initiateGracefulShutdown();
    target.initiateGracefulShutdown();
    expect(source.openListenerCount() + target.openListenerCount()).toBe(2);
    await expect(target.startTargetListener("key2", launcher.sockets)).rejects.toThrow(SHUTDOWN_REFUSAL);
    await expect(source.startSourceListener("key2", "127.0.0.1", ports, sourceRun)).rejects.toThrow(
      SHUTDOWN_REFUSAL,
    );
    await source.stopAll();
    await target.stopAll();
    expect(source.openListenerCount() + target.openListenerCount()).toBe(0);
  });

  it("refuses ports and keys that could not have come from a target handler", async () => {
    const { source } = newPair();
    await expect(source.startSourceListener(KEY, "127.0.0.1", { "99999": 0 }, sourceRun)).rejects.toThrow(
      'invalid target migration port "99999"',
    );
    await expect(source.startSourceListener(KEY, "127.0.0.1", { "1234": 7 }, sourceRun)).rejects.toThrow(
      "invalid source migration port 7",
    );
    await expect(source.startSourceListener("../x", "127.0.0.1", { "1234": 0 }, sourceRun)).rejects.toThrow(
      "invalid migration proxy key",
    );
    expect(source.openListenerCount()).toBe(0);
  });

  it("hands every source socket to the launcher's QEMU user, and gives up on all of them if it cannot", async () => {
    const owned: string[] = [];
    const common = { disableTLS: () => true, logger: silentLogger, tls: migrationTLSOf(certs) };
    const source = new MigrationProxyManager({
      ...common,
      ownership: { setFileOwnership: (file) => Promise.resolve(void owned.push(file)) },
    });
    cleanups.push(() => source.stopAll());
    await source.startSourceListener(KEY, "127.0.0.1", { "1234": 0, "1235": 49152 }, sourceRun);
    expect(owned.sort()).toEqual(source.getSourceListenerFiles(KEY).sort());

    const refusing = new MigrationProxyManager({
      ...common,
      ownership: { setFileOwnership: () => Promise.reject(new Error("chown: operation not permitted")) },
    });
    await expect(
      refusing.startSourceListener("other", "127.0.0.1", { "1234": 0 }, sourceRun),
    ).rejects.toThrow("operation not permitted");
    expect(refusing.openListenerCount()).toBe(0);
    expect(existsSync(sourceUnixFile(sourceRun, "other"))).toBe(false);
  });

  it("starts no target listener while the CA bundle is unknown", async () => {
    const { target } = newPair({ target: { caBundle: () => undefined } });
    await expect(target.startTargetListener(KEY, [path.join(dir, "x")])).rejects.toThrow(
      "No ca certificate, server is not yet ready to receive traffic",
    );
    expect(target.openListenerCount()).toBe(0);
  });

  it("leaves nothing listening when one source socket cannot be created", async () => {
    const { source } = newPair();
    await mkdir(sourceRun, { recursive: true });
    await writeFile(path.join(sourceRun, "migrationproxy"), "a file where the directory should be");
    await expect(
      source.startSourceListener(KEY, "127.0.0.1", { "1234": 0, "1235": 49152 }, sourceRun),
    ).rejects.toThrow();
    expect(source.openListenerCount()).toBe(0);
    expect(source.getSourceListenerFiles(KEY)).toEqual([]);
  });
});
