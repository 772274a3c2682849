import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { Quantity } from "../../defaults/quantity.js";
import { renderResources, type ResourceOptions } from "./render-resources.js";

// One row per rule of upstream's renderresources.go / VMIResourcePredicates, with a fixed 100Mi overhead
// so each row shows only its own rule.

const overhead = Quantity.fromInteger(100n * 1024n * 1024n, "DecimalSI");
const defaults: ResourceOptions = {
  allowEmulation: false,
  memoryOvercommit: 100,
  cpuAllocationRatio: 10,
  memoryOverhead: overhead,
};

function vmi(domain: Partial<VirtualMachineInstance["spec"]["domain"]> = {}): VirtualMachineInstance {
  return {
    spec: {
      domain: {
        devices: { interfaces: [{ name: "default", masquerade: {} }] },
        memory: { guest: "1Gi" },
        ...domain,
      },
    },
  };
}

describe("renderResources", () => {
  it.each<
    [
      string,
      VirtualMachineInstance,
      Partial<ResourceOptions>,
      { requests: Record<string, string>; limits: Record<string, string> },
    ]
  >([
    [
      "guest memory plus overhead, a tenth of a CPU per vCPU, 50M of ephemeral storage, kvm + tun + vhost-net",
      vmi(),
      {},
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: {
          "devices.kubevirt.io/kvm": "1",
          "devices.kubevirt.io/tun": "1",
          "devices.kubevirt.io/vhost-net": "1",
        },
      },
    ],
    [
      "useEmulation: no kvm and no vhost-net",
      vmi(),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "no interface and no pod interface: no tun",
      vmi({ devices: { autoattachPodInterface: false } }),
      { allowEmulation: true },
      { requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" }, limits: {} },
    ],
    [
      "an e1000 NIC needs no vhost-net",
      vmi({ devices: { interfaces: [{ name: "default", masquerade: {}, model: "e1000" }] } }),
      {},
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "memory overcommit 150%: the request is two thirds of the guest memory",
      vmi({ memory: { guest: "1536Mi" } }),
      { allowEmulation: true, memoryOvercommit: 150 },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "a memory limit without request: both become the limit plus overhead",
      vmi({ resources: { limits: { memory: "2Gi" } } }),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "2148Mi" },
        limits: { "devices.kubevirt.io/tun": "1", memory: "2148Mi" },
      },
    ],
    [
      "the user's CPU request wins over the calculated share",
      vmi({ resources: { requests: { cpu: "500m", memory: "1Gi" } } }),
      { allowEmulation: true },
      {
        requests: { cpu: "500m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "3 vCPUs at ratio 2: one and a half CPU",
      vmi({ cpu: { cores: 3 } }),
      { allowEmulation: true, cpuAllocationRatio: 2 },
      {
        requests: { cpu: "1500m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "ephemeral storage is added to the user's request and limit",
      vmi({
        resources: { requests: { "ephemeral-storage": "1Gi" }, limits: { "ephemeral-storage": "2Gi" } },
      }),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "1123741824", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1", "ephemeral-storage": "2197483648" },
      },
    ],
    [
      "overcommitGuestOverhead: the overhead is not requested",
      vmi({ resources: { overcommitGuestOverhead: true } }),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1Gi" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "a decimal memory request keeps its decimal form",
      vmi({ resources: { requests: { memory: "1G" } } }),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1104857600" },
        limits: { "devices.kubevirt.io/tun": "1" },
      },
    ],
    [
      "auto-attached VSOCK needs vhost-vsock",
      vmi({ devices: { interfaces: [{ name: "default", masquerade: {} }], autoattachVSOCK: true } }),
      { allowEmulation: true },
      {
        requests: { cpu: "100m", "ephemeral-storage": "50M", memory: "1124Mi" },
        limits: { "devices.kubevirt.io/tun": "1", "devices.kubevirt.io/vhost-vsock": "1" },
      },
    ],
  ])("%s", (_name, subject, options, expected) => {
    expect(renderResources(subject, { ...defaults, ...options })).toEqual(expected);
  });
});
