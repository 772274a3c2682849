import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  constructProxyKey,
  getMigrationPortsList,
  isProxiedPort,
  isValidProxyKey,
  LibvirtBlockMigrationPort,
  LibvirtDirectMigrationPort,
  migrationPortOfSocket,
  parseTcpPort,
  sourceUnixFile,
} from "./keys.js";

const UID = "6b3f1a52-1d2e-4c8b-9a57-0e3f2a1b4c5d";
const BASE = "/proc/4242/root/var/run/kubevirt";

describe("migration proxy keys and paths", () => {
  it("names the ports a migration needs as upstream does", () => {
    expect(getMigrationPortsList(false)).toEqual([49152]);
    expect(getMigrationPortsList(true)).toEqual([49152, 49153]);
  });

  it.each([
    [UID, 0, UID],
    [UID, LibvirtDirectMigrationPort, `${UID}-49152`],
    [UID, LibvirtBlockMigrationPort, `${UID}-49153`],
  ])("constructProxyKey(%s, %i) = %s", (id, port, key) => {
    expect(constructProxyKey(id, port)).toBe(key);
  });

  it("puts source sockets in the launcher's migrationproxy directory", () => {
    expect(sourceUnixFile(BASE, UID)).toBe(`${BASE}/migrationproxy/${UID}-source.sock`);
    expect(sourceUnixFile(BASE, `${UID}-49152`)).toBe(`${BASE}/migrationproxy/${UID}-49152-source.sock`);
  });

  it.each([
    ["/proc/1/root/var/run/libvirt/virtqemud-sock", 0],
    [`${BASE}/migrationproxy/${UID}-49152-source.sock`, 49152],
    [`${BASE}/migrationproxy/${UID}-49153-source.sock`, 49153],
    // upstream's own test names the direct socket `<key>-49152`
    [`/tmp/x/${UID}-49152`, 49152],
    // a directory named like a migration socket does not count
    [`/tmp/${UID}-49153/virtqemud-sock`, 0],
    [`${BASE}/migrationproxy/other-uid-49152-source.sock`, 0],
  ])("migrationPortOfSocket(%s) = %i", (socket, port) => {
    expect(migrationPortOfSocket(UID, socket)).toBe(port);
  });

  it.each([
    ["49152", 49152],
    ["1", 1],
    ["65535", 65535],
    ["65536", undefined],
    ["0", undefined],
    ["0123", undefined],
    ["", undefined],
    [" 80", undefined],
    ["80a", undefined],
    ["-1", undefined],
    ["1e3", undefined],
  ])("parseTcpPort(%j) = %s", (text, port) => {
    expect(parseTcpPort(text)).toBe(port);
  });

  it.each([
    [0, true],
    [49152, true],
    [49153, true],
    [49154, false],
    [-1, false],
    [Number.NaN, false],
  ])("isProxiedPort(%d) = %s", (port, proxied) => {
    expect(isProxiedPort(port)).toBe(proxied);
  });

  it.each([
    [UID, true],
    [`${UID}-49152`, true],
    ["", false],
    [".", false],
    ["..", false],
    ["../etc", false],
    ["a/b", false],
    ["a\0b", false],
  ])("isValidProxyKey(%j) = %s", (key, valid) => {
    expect(isValidProxyKey(key)).toBe(valid);
  });

  it("maps every target socket back to the port it was made for, whatever the UID and base dir", () => {
    const port = fc.constantFrom(0, LibvirtDirectMigrationPort, LibvirtBlockMigrationPort);
    const dir = fc.array(fc.string({ minLength: 1 }).filter(isValidProxyKey), { maxLength: 4 });
    fc.assert(
      fc.property(fc.uuid(), dir, port, (uid, segments, migrationPort) => {
        const baseDir = `/${segments.join("/")}`;
        const socket =
          migrationPort === 0
            ? `${baseDir}/libvirt/virtqemud-sock`
            : sourceUnixFile(baseDir, constructProxyKey(uid, migrationPort));
        expect(migrationPortOfSocket(uid, socket)).toBe(migrationPort);
      }),
    );
  });

  it("accepts exactly the decimal ports 1..65535", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const port = parseTcpPort(text);
        if (port !== undefined) expect(String(port)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), (port) => {
        expect(parseTcpPort(String(port))).toBe(port);
      }),
    );
  });

  it("never lets a valid key leave the migrationproxy directory", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (key) => {
        if (!isValidProxyKey(key)) return;
        expect(sourceUnixFile(BASE, key).startsWith(`${BASE}/migrationproxy/`)).toBe(true);
      }),
    );
  });
});
