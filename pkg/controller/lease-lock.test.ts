import { describe, expect, it } from "vitest";
import { KubeClient } from "./client.js";
import { LeaseLock, formatMicroTime, leaseSpecFromRecord, recordFromLeaseSpec } from "./lease-lock.js";
import { RecordingTransport } from "./testing/recording-transport.js";

describe("Lease <-> leader election record", () => {
  it("writes MicroTime with six fractional digits and reads it back", () => {
    const record = {
      holderIdentity: "virt-controller-abc",
      leaseDurationSeconds: 15,
      acquireTime: Date.parse("2025-01-01T00:00:00.123Z"),
      renewTime: Date.parse("2025-01-01T00:00:10.5Z"),
      leaderTransitions: 2,
    };
    const spec = leaseSpecFromRecord(record);
    expect(spec).toEqual({
      holderIdentity: "virt-controller-abc",
      leaseDurationSeconds: 15,
      acquireTime: "2025-01-01T00:00:00.123000Z",
      renewTime: "2025-01-01T00:00:10.500000Z",
      leaseTransitions: 2,
    });
    expect(recordFromLeaseSpec(spec)).toEqual(record);
    expect(formatMicroTime(0)).toBe("1970-01-01T00:00:00.000000Z");
  });

  it("reads an empty or partial spec as a free lease", () => {
    expect(recordFromLeaseSpec(undefined)).toEqual({
      holderIdentity: "",
      leaseDurationSeconds: 0,
      acquireTime: 0,
      renewTime: 0,
      leaderTransitions: 0,
    });
  });
});

describe("LeaseLock", () => {
  it("updates with the resourceVersion it last read (optimistic concurrency)", async () => {
    const transport = new RecordingTransport((req) =>
      req.method === "GET"
        ? {
            metadata: { name: "virt-controller", namespace: "kubevirt", resourceVersion: "77" },
            spec: { holderIdentity: "x" },
          }
        : req.body,
    );
    const lock = new LeaseLock(new KubeClient(transport), "kubevirt", "virt-controller", "me");
    await expect(
      lock.update({
        holderIdentity: "me",
        leaseDurationSeconds: 15,
        acquireTime: 1,
        renewTime: 1,
        leaderTransitions: 0,
      }),
    ).rejects.toThrow(/lease not initialized/);
    const observed = await lock.get();
    expect(observed.record.holderIdentity).toBe("x");
    await lock.update({ ...observed.record, holderIdentity: "me", leaseDurationSeconds: 15 });
    const put = transport.requests.at(-1);
    expect(put).toMatchObject({
      method: "PUT",
      path: "/apis/coordination.k8s.io/v1/namespaces/kubevirt/leases/virt-controller",
      body: { metadata: { resourceVersion: "77" }, spec: { holderIdentity: "me", leaseDurationSeconds: 15 } },
    });
  });

  it("creates a coordination.k8s.io/v1 Lease", async () => {
    const transport = new RecordingTransport();
    const lock = new LeaseLock(new KubeClient(transport), "kubevirt", "virt-operator", "me");
    await lock.create({
      holderIdentity: "me",
      leaseDurationSeconds: 15,
      acquireTime: 0,
      renewTime: 0,
      leaderTransitions: 0,
    });
    expect(transport.requests[0]).toMatchObject({
      method: "POST",
      path: "/apis/coordination.k8s.io/v1/namespaces/kubevirt/leases",
      body: {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "virt-operator", namespace: "kubevirt" },
      },
    });
  });
});
