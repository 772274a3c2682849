import { describe, expect, it } from "vitest";
import * as migrate from "../../libvirt/migrate.js";
import type { Disk } from "./api/schema.js";
import { defaultedVMI } from "./converter/testing.js";
import {
  MigrationOptionsSchema,
  destinationURI,
  generateDomainName,
  generateMigrationFlags,
  generateMigrationParams,
  getDiskTargetsForMigration,
  migrationDataSizeGB,
  migrationUID,
  parseMigrationOptions,
  quantityToMebiByte,
} from "./live-migration-params.js";

const options = (overrides: object = {}) => MigrationOptionsSchema.parse(overrides);
const BASE = migrate.VIR_MIGRATE_LIVE | migrate.VIR_MIGRATE_PEER2PEER | migrate.VIR_MIGRATE_PERSIST_DEST;

const vmi = defaultedVMI(
  {
    domain: { devices: {}, resources: { requests: { memory: "1500Mi" } } },
    volumes: [
      { name: "root", containerDisk: { image: "img" } },
      { name: "data", persistentVolumeClaim: { claimName: "data" } },
      { name: "init", cloudInitNoCloud: { userData: "#cloud-config" } },
    ],
  },
  { name: "vm", namespace: "ns", uid: "src-uid" },
);

describe("generateMigrationFlags", () => {
  it.each([
    ["no options", false, false, {}, BASE],
    ["block migration", true, false, {}, BASE | migrate.VIR_MIGRATE_NON_SHARED_INC],
    ["a paused guest", false, true, {}, BASE | migrate.VIR_MIGRATE_PAUSED],
    ["unsafe", false, false, { UnsafeMigration: true }, BASE | migrate.VIR_MIGRATE_UNSAFE],
    ["auto-converge", false, false, { AllowAutoConverge: true }, BASE | migrate.VIR_MIGRATE_AUTO_CONVERGE],
    ["post-copy", false, false, { AllowPostCopy: true }, BASE | migrate.VIR_MIGRATE_POSTCOPY],
    ["parallel threads", false, false, { ParallelMigrationThreads: 4 }, BASE | migrate.VIR_MIGRATE_PARALLEL],
    [
      "parallel threads with post-copy (post-copy wins)",
      false,
      false,
      { ParallelMigrationThreads: 4, AllowPostCopy: true },
      BASE | migrate.VIR_MIGRATE_POSTCOPY,
    ],
  ])("%s", (_name, block, paused, overrides, flags) => {
    expect(generateMigrationFlags(block, paused, options(overrides))).toBe(flags);
  });
});

describe("quantityToMebiByte", () => {
  it.each([
    ["0", 0],
    ["1", 1],
    ["1Mi", 1],
    ["64Mi", 64],
    ["1536Ki", 2],
    ["1G", 954],
  ])("%s is %d MiB", (text, mib) => expect(quantityToMebiByte(text)).toBe(mib));
});

describe("parseMigrationOptions", () => {
  it("reads virt-handler's JSON, absent fields as Go's zero values", () => {
    const parsed = parseMigrationOptions(
      Buffer.from('{"Bandwidth":"64Mi","ProgressTimeout":150,"ParallelMigrationThreads":null}'),
    );
    expect(parsed).toMatchObject({
      Bandwidth: "64Mi",
      ProgressTimeout: 150,
      CompletionTimeoutPerGiB: 0,
      AllowPostCopy: false,
      ParallelMigrationThreads: null,
    });
  });

  it("names what does not parse", () => {
    expect(() => parseMigrationOptions(Buffer.from("{"))).toThrow(/failed to unmarshal migration options/);
    expect(() => parseMigrationOptions(Buffer.from('{"AllowPostCopy":"yes"}'))).toThrow(/AllowPostCopy/);
  });
});

describe("generateMigrationParams", () => {
  const disks: Disk[] = [
    {
      device: "disk",
      type: "file",
      source: {},
      target: { device: "vda" },
      alias: { name: "root", userDefined: true },
    },
    {
      device: "disk",
      type: "block",
      source: {},
      target: { device: "vdb" },
      alias: { name: "data", userDefined: true },
    },
    {
      device: "disk",
      type: "file",
      source: {},
      target: { device: "vdc" },
      readOnly: {},
      alias: { name: "init", userDefined: true },
    },
    {
      device: "cdrom",
      type: "file",
      source: {},
      target: { device: "sda" },
      alias: { name: "cd", userDefined: true },
    },
  ];

  it("sends QEMU's stream to the direct-migration proxy socket and names the destination", () => {
    const params = generateMigrationParams(
      vmi,
      options({ Bandwidth: "64Mi" }),
      "/var/run/kubevirt",
      "<x/>",
      [],
    );
    expect(params).toEqual({
      uri: "unix:///var/run/kubevirt/migrationproxy/src-uid-49152-source.sock",
      destXML: "<x/>",
      persistXML: "<x/>",
      destName: "ns_vm",
      bandwidth: 64,
    });
    expect(destinationURI(vmi, "/var/run/kubevirt")).toBe(
      "qemu+unix:///session?socket=/var/run/kubevirt/migrationproxy/src-uid-source.sock",
    );
  });

  it("copies local and generated disks but not shared claims or CD-ROMs, over the block proxy socket", () => {
    expect(getDiskTargetsForMigration(disks, vmi)).toEqual(["vda", "vdc"]);
    const params = generateMigrationParams(vmi, options(), "/s", "<x/>", disks);
    expect(params.migrateDisks).toEqual(["vda", "vdc"]);
    expect(params.disksURI).toBe("unix:///s/migrationproxy/src-uid-49153-source.sock");
  });

  it("puts the target VMI's uid into the definition and uses the target's domain name (decentralized)", () => {
    const decentralized = structuredClone(vmi);
    decentralized.status = {
      migrationState: {
        migrationUid: "m1",
        sourceState: { migrationUID: "m-src" },
        targetState: { virtualMachineInstanceUID: "dst-uid", domainName: "vm2", domainNamespace: "other" },
      },
    };
    const params = generateMigrationParams(decentralized, options(), "/s", "<uuid>src-uid</uuid>", []);
    expect(params.destXML).toBe("<uuid>dst-uid</uuid>");
    expect(params.destName).toBe("other_vm2");
    expect(generateDomainName(vmi)).toBe("ns_vm");
    expect(migrationUID(decentralized)).toBe("m-src");
  });

  it("gives the migration time by the memory in GB, rounded up", () => {
    expect(migrationDataSizeGB(vmi)).toBe(2);
  });
});
