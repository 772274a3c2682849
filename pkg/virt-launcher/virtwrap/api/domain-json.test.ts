import { describe, expect, it } from "vitest";
import { camelFieldName, domainToJSON, goFieldName, parseDomainJSON } from "./domain-json.js";
import type { DomainObject } from "./domain-object.js";

const domain: DomainObject = {
  objectMeta: { name: "testvmi", namespace: "default", uid: "uid-1" },
  spec: {
    type: "qemu",
    name: "default_testvmi",
    uuid: "00000000-0000-4000-8000-000000000001",
    memory: { value: 134217728, unit: "b" },
    os: { type: { os: "hvm", arch: "x86_64", machine: "q35" } },
    cpu: { mode: "host-model" },
    devices: {
      interfaces: [
        {
          type: "ethernet",
          target: { device: "tap0", managed: "no" },
          mac: { mac: "02:00:00:00:00:01" },
          mtu: { size: "1500" },
          alias: { name: "default", userDefined: true },
        },
      ],
    },
    metadata: {
      kubeVirt: {
        uid: "uid-1",
        gracePeriod: { deletionGracePeriodSeconds: 30, markedForGracefulShutdown: true },
      },
    },
  },
  status: { status: "Running", reason: "Unknown" },
};

describe("api.Domain JSON", () => {
  it.each([
    ["type", "Type"],
    ["uuid", "UUID"],
    ["os", "OS"],
    ["cpu", "CPU"],
    ["vcpus", "VCPUs"],
    ["mac", "MAC"],
    ["mtu", "MTU"],
    ["kubeVirt", "KubeVirt"],
    ["deletionGracePeriodSeconds", "DeletionGracePeriodSeconds"],
    ["userDefined", "UserDefined"],
    ["pciHole64", "PCIHole64"],
    ["vram", "VRam"],
  ])("%s is upstream's Go field %s, and back", (camel, go) => {
    expect(goFieldName(camel)).toBe(go);
    expect(camelFieldName(go)).toBe(camel);
  });

  it("writes the keys upstream's encoding/json writes", () => {
    const json = JSON.parse(domainToJSON(domain));
    expect(json).toMatchObject({
      kind: "Domain",
      apiVersion: "1.2.2",
      ObjectMeta: { name: "testvmi", namespace: "default", uid: "uid-1", creationTimestamp: null },
      Spec: {
        Type: "qemu",
        UUID: "00000000-0000-4000-8000-000000000001",
        OS: { Type: { OS: "hvm", Arch: "x86_64", Machine: "q35" } },
        Devices: {
          Interfaces: [
            {
              Target: { Device: "tap0", Managed: "no" },
              MAC: { MAC: "02:00:00:00:00:01" },
              Alias: { Name: "default", UserDefined: true },
            },
          ],
        },
        Metadata: {
          KubeVirt: {
            UID: "uid-1",
            GracePeriod: { DeletionGracePeriodSeconds: 30, MarkedForGracefulShutdown: true },
          },
        },
      },
      Status: { Status: "Running", Reason: "Unknown", Interfaces: null, FSFreezeStatus: { Status: "" } },
    });
    expect(json.ObjectMeta).not.toHaveProperty("deletionTimestamp");
  });

  it("reads back what it writes", () => {
    expect(parseDomainJSON(domainToJSON(domain))).toEqual(domain);
  });

  it("carries the migration metadata under upstream's keys, and reads it back", () => {
    const migration = {
      uid: "mig-1",
      startTimestamp: "2026-12-08T10:00:00Z",
      endTimestamp: "2026-12-08T10:00:03Z",
      failed: true,
      failureReason: "Live migration aborted ",
      abortStatus: "Succeeded",
      mode: "PreCopy",
    };
    const migrating: DomainObject = {
      ...domain,
      spec: { ...domain.spec, metadata: { kubeVirt: { uid: "u", migration } } },
    };
    const json = JSON.parse(domainToJSON(migrating)) as { Spec: { Metadata: { KubeVirt: unknown } } };
    expect(json.Spec.Metadata.KubeVirt).toEqual({
      UID: "u",
      Migration: {
        UID: "mig-1",
        StartTimestamp: "2026-12-08T10:00:00Z",
        EndTimestamp: "2026-12-08T10:00:03Z",
        Failed: true,
        FailureReason: "Live migration aborted ",
        AbortStatus: "Succeeded",
        Mode: "PreCopy",
      },
    });
    expect(parseDomainJSON(domainToJSON(migrating)).spec.metadata?.kubeVirt.migration).toEqual(migration);
  });

  it("carries the guest agent's report: OS, interfaces and the filesystem freeze status", () => {
    const osInfo = {
      name: "Debian GNU/Linux",
      kernelRelease: "6.1.0-18-amd64",
      version: "12 (bookworm)",
      prettyName: "Debian GNU/Linux 12 (bookworm)",
      versionId: "12",
      kernelVersion: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
      machine: "x86_64",
      id: "debian",
    };
    const reported: DomainObject = {
      ...domain,
      status: {
        ...domain.status,
        interfaces: [{ mac: "02:00:00:00:00:01", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" }],
        osInfo,
        fsFreezeStatus: "frozen",
      },
    };
    const json = JSON.parse(domainToJSON(reported));
    expect(json.Status).toMatchObject({
      OSInfo: { Name: "Debian GNU/Linux", VersionId: "12", Id: "debian", KernelRelease: "6.1.0-18-amd64" },
      FSFreezeStatus: { Status: "frozen" },
      Interfaces: [{ Mac: "02:00:00:00:00:01", Ip: "10.0.2.2", IPs: ["10.0.2.2"], InterfaceName: "eth0" }],
    });
    expect(parseDomainJSON(domainToJSON(reported))).toEqual(reported);
  });

  it("reads a domain as upstream's launcher sends it, XMLName and all", () => {
    const upstream = {
      kind: "Domain",
      apiVersion: "1.2.2",
      ObjectMeta: {
        name: "vmi-a",
        namespace: "ns",
        uid: "u",
        creationTimestamp: null,
        deletionTimestamp: "2026-01-01T00:00:00Z",
      },
      Spec: {
        XMLName: { Space: "", Local: "domain" },
        Type: "kvm",
        Name: "ns_vmi-a",
        Metadata: { KubeVirt: { UID: "u", GracePeriod: null } },
      },
      Status: {
        Status: "Shutoff",
        Reason: "Destroyed",
        Interfaces: [{ Mac: "02:00:00:00:00:02", Ip: "10.0.2.2", IPs: ["10.0.2.2"], InterfaceName: "eth0" }],
        OSInfo: { Name: "" },
        FSFreezeStatus: { Status: "" },
        GuestPanicInfo: null,
        PanicCount: 0,
      },
    };
    const parsed = parseDomainJSON(JSON.stringify(upstream));
    expect(parsed.objectMeta).toEqual({
      name: "vmi-a",
      namespace: "ns",
      uid: "u",
      deletionTimestamp: "2026-01-01T00:00:00Z",
    });
    expect(parsed.spec).toMatchObject({
      type: "kvm",
      name: "ns_vmi-a",
      metadata: { kubeVirt: { uid: "u" } },
    });
    expect(parsed.spec).not.toHaveProperty("xMLName");
    expect(parsed.status).toEqual({
      status: "Shutoff",
      reason: "Destroyed",
      interfaces: [{ mac: "02:00:00:00:00:02", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" }],
    });
  });

  it.each([
    ["not JSON", "{"],
    ["no ObjectMeta", JSON.stringify({ Spec: {}, Status: { Status: "Running", Reason: "" } })],
    [
      "a state that does not exist",
      JSON.stringify({
        ObjectMeta: { name: "a", namespace: "b" },
        Spec: {},
        Status: { Status: "Exploded", Reason: "" },
      }),
    ],
  ])("refuses %s", (_what, text) => {
    expect(() => parseDomainJSON(text)).toThrow();
  });
});
