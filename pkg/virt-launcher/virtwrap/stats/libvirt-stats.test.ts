import { describe, expect, it } from "vitest";
import type { Domain } from "../../../libvirt/client.js";
import type { TypedParamValue } from "../../../libvirt/typed-params.js";
import { uuidToBytes } from "../../../libvirt/uuid.js";
import {
  convertDomainStats,
  deviceAliases,
  readDomainStats,
  VIR_CONNECT_GET_ALL_DOMAINS_STATS_PAUSED,
  VIR_CONNECT_GET_ALL_DOMAINS_STATS_RUNNING,
  VIR_DOMAIN_MEMORY_STAT_NR,
  type StatsConnection,
} from "./libvirt-stats.js";
import { VCPU_OFFLINE, VCPU_RUNNING } from "./types.js";

const domainXML = `<domain type="kvm">
  <name>default_testvmi</name>
  <memory unit="KiB">65536</memory>
  <os><type arch="x86_64" machine="q35">hvm</type></os>
  <devices>
    <interface type="ethernet">
      <target dev="tap0" managed="no"/>
      <model type="virtio-non-transitional"/>
      <alias name="ua-default"/>
    </interface>
    <disk type="file" device="disk">
      <driver name="qemu" type="qcow2"/>
      <source file="/var/run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2"/>
      <target bus="virtio" dev="vda"/>
      <alias name="ua-containerdisk"/>
    </disk>
    <disk type="file" device="cdrom">
      <source file="/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/testvmi/noCloud.iso"/>
      <target bus="sata" dev="sda"/>
    </disk>
  </devices>
</domain>`;

const params: Record<string, TypedParamValue> = {
  "cpu.time": 3_000_000_000n,
  "cpu.user": 1_000_000_000n,
  "cpu.system": 500_000_000n,
  "vcpu.current": 1,
  "vcpu.maximum": 2,
  "vcpu.0.state": VCPU_RUNNING,
  "vcpu.0.time": 2_500_000_000n,
  "vcpu.0.wait": 0n,
  "net.count": 1,
  "net.0.name": "tap0",
  "net.0.rx.bytes": 1024n,
  "net.0.rx.pkts": 8n,
  "net.0.rx.errs": 0n,
  "net.0.rx.drop": 1n,
  "net.0.tx.bytes": 2048n,
  "net.0.tx.pkts": 16n,
  "net.0.tx.errs": 0n,
  "net.0.tx.drop": 0n,
  "block.count": 2,
  "block.0.name": "vda",
  "block.0.path": "/var/run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2",
  "block.0.rd.reqs": 100n,
  "block.0.rd.bytes": 409600n,
  "block.0.rd.times": 2_000_000n,
  "block.0.wr.reqs": 10n,
  "block.0.wr.bytes": 40960n,
  "block.0.wr.times": 1_000_000n,
  "block.0.fl.reqs": 3n,
  "block.0.fl.times": 300n,
  "block.0.capacity": 1n << 40n,
  "block.1.name": "sda",
};

describe("deviceAliases", () => {
  it("maps each interface's and disk's target to the VMI's name for it", () => {
    expect(deviceAliases(domainXML)).toEqual(
      new Map([
        ["tap0", "default"],
        ["vda", "containerdisk"],
        ["sda", ""],
      ]),
    );
  });
});

describe("convertDomainStats", () => {
  const stats = convertDomainStats({
    name: "default_testvmi",
    uuid: "5e2fa4a4-4a60-4b1c-9d3c-1f0e3f0b6a11",
    params,
    memory: [
      { tag: 7, val: 51200n }, // rss
      { tag: 6, val: 65536n }, // actual balloon
      { tag: 9, val: 1700000000n }, // last update: not a figure upstream keeps
    ],
    info: { memory: 65536n, nrVirtCpu: 2 },
    aliases: deviceAliases(domainXML),
  });

  it("reads the CPU totals and each vCPU, one libvirt says nothing of as offline", () => {
    expect(stats.Cpu).toEqual({
      TimeSet: true,
      Time: 3_000_000_000,
      UserSet: true,
      User: 1_000_000_000,
      SystemSet: true,
      System: 500_000_000,
    });
    expect(stats.Vcpu).toEqual([
      {
        ...{ StateSet: true, State: VCPU_RUNNING, TimeSet: true, Time: 2_500_000_000 },
        ...{ WaitSet: true, Wait: 0, DelaySet: false, Delay: 0 },
      },
      {
        ...{ StateSet: true, State: VCPU_OFFLINE, TimeSet: false, Time: 0 },
        ...{ WaitSet: false, Wait: 0, DelaySet: false, Delay: 0 },
      },
    ]);
    expect(stats.NrVirtCpu).toBe(2);
  });

  it("reads the memory figures by tag, and the domain's memory as the total", () => {
    expect(stats.Memory).toMatchObject({
      RSSSet: true,
      RSS: 51200,
      ActualBalloonSet: true,
      ActualBalloon: 65536,
      TotalSet: true,
      Total: 65536,
      UsableSet: false,
      AvailableSet: false,
    });
  });

  it("names interfaces and disks by their alias", () => {
    expect(stats.Net).toEqual([
      {
        ...{ NameSet: true, Name: "tap0", AliasSet: true, Alias: "default" },
        ...{ RxBytesSet: true, RxBytes: 1024, RxPktsSet: true, RxPkts: 8, RxErrsSet: true, RxErrs: 0 },
        ...{ RxDropSet: true, RxDrop: 1, TxBytesSet: true, TxBytes: 2048, TxPktsSet: true, TxPkts: 16 },
        ...{ TxErrsSet: true, TxErrs: 0, TxDropSet: true, TxDrop: 0 },
      },
    ]);
    expect(stats.Block?.[0]).toMatchObject({
      NameSet: true,
      Name: "vda",
      Alias: "containerdisk",
      PathSet: true,
      RdReqs: 100,
      RdBytesSet: true,
      RdBytes: 409600,
      RdTimes: 2_000_000,
      WrBytes: 40960,
      FlReqs: 3,
      Capacity: 2 ** 40,
      ErrorsSet: false,
    });
    expect(stats.Block?.[1]).toMatchObject({ NameSet: true, Name: "sda", Alias: "", RdBytesSet: false });
  });

  it("travels as JSON with Go's field names", () => {
    expect(Object.keys(JSON.parse(JSON.stringify(stats)) as object)).toEqual([
      "Name",
      "UUID",
      "Cpu",
      "Memory",
      "Vcpu",
      "Net",
      "Block",
      "NrVirtCpu",
    ]);
  });
});

describe("readDomainStats", () => {
  const dom: Domain = {
    name: "default_testvmi",
    uuid: uuidToBytes("5e2fa4a4-4a60-4b1c-9d3c-1f0e3f0b6a11"),
    id: 1,
  };

  function connection(records: { dom: Domain; params: Record<string, TypedParamValue> }[]) {
    const calls: unknown[][] = [];
    const fake: StatsConnection = {
      connectGetAllDomainStats: (...args) => {
        calls.push(["getAllDomainStats", ...args]);
        return Promise.resolve(records);
      },
      domainMemoryStats: (_dom, maxStats) => {
        calls.push(["memoryStats", maxStats]);
        return Promise.resolve([{ tag: 7, val: 4096n }]);
      },
      domainGetXMLDesc: () => Promise.resolve(domainXML),
      domainGetInfo: () =>
        Promise.resolve({ state: 1, maxMem: 65536n, memory: 65536n, nrVirtCpu: 1, cpuTime: 0n }),
    };
    return { fake, calls };
  }

  it("asks for the running or paused domain's stats and reads its memory, aliases and info", async () => {
    const { fake, calls } = connection([{ dom, params }]);
    const stats = await readDomainStats(fake);
    expect(calls[0]).toEqual([
      "getAllDomainStats",
      expect.any(Number),
      VIR_CONNECT_GET_ALL_DOMAINS_STATS_RUNNING | VIR_CONNECT_GET_ALL_DOMAINS_STATS_PAUSED,
    ]);
    expect(calls[1]).toEqual(["memoryStats", VIR_DOMAIN_MEMORY_STAT_NR]);
    expect(stats).toMatchObject({
      Name: "default_testvmi",
      UUID: "5e2fa4a4-4a60-4b1c-9d3c-1f0e3f0b6a11",
      Memory: { RSSSet: true, RSS: 4096, Total: 65536 },
      Net: [{ Alias: "default" }],
    });
  });

  it("names devices by their target when the domain XML cannot be read", async () => {
    const { fake } = connection([{ dom, params }]);
    fake.domainGetXMLDesc = () => Promise.resolve("<domain><devices><disk/></devices></domain>");
    expect((await readDomainStats(fake))?.Net?.[0]).toMatchObject({ Name: "tap0", AliasSet: false });
  });

  it("answers nothing when no domain runs", async () => {
    expect(await readDomainStats(connection([]).fake)).toBeUndefined();
  });
});
