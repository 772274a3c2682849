import { describe, expect, it } from "vitest";
import { EventCorrelator } from "./event-correlator.js";
import { formatTime, type CoreEvent } from "./event-types.js";

function setup(options: { burst?: number } = {}) {
  let now = Date.parse("2025-01-01T00:00:00Z");
  const clock = { now: () => now };
  const correlator = new EventCorrelator({ clock, ...options });
  const event = (message: string, reason = "SuccessfulCreate"): CoreEvent => ({
    metadata: { name: `vm.${now}`, namespace: "default" },
    involvedObject: {
      kind: "VirtualMachine",
      namespace: "default",
      name: "vm",
      uid: "u1",
      apiVersion: "kubevirt.io/v1",
    },
    reason,
    message,
    source: { component: "virt-controller" },
    firstTimestamp: formatTime(now),
    lastTimestamp: formatTime(now),
    count: 1,
    type: "Normal",
    reportingComponent: "virt-controller",
    reportingInstance: "",
  });
  return { correlator, event, advance: (ms: number) => (now += ms) };
}

describe("EventCorrelator", () => {
  it("turns a repeat of an identical event into a count patch on the first one", () => {
    const { correlator, event, advance } = setup();
    const first = correlator.correlate(event("Created virtual machine pod x"));
    expect(first.patch).toBeUndefined();
    correlator.updateState({ ...first.event!, metadata: { ...first.event!.metadata, resourceVersion: "5" } });
    advance(3000);
    const second = correlator.correlate(event("Created virtual machine pod x"));
    expect(second.event?.metadata.name).toBe(first.event?.metadata.name);
    expect(second.event?.metadata.resourceVersion).toBe("5");
    expect(second.event?.firstTimestamp).toBe(first.event?.firstTimestamp);
    expect(second.patch).toEqual({
      count: 2,
      lastTimestamp: "2025-01-01T00:00:03Z",
      message: "Created virtual machine pod x",
    });
    expect(correlator.correlate(event("Created virtual machine pod x")).patch?.count).toBe(3);
  });

  it("aggregates the 10th distinct message with the same reason within 10 minutes", () => {
    const { correlator, event } = setup();
    for (let i = 1; i <= 9; i++) {
      const r = correlator.correlate(event(`message ${i}`));
      expect(r.event?.message).toBe(`message ${i}`);
    }
    const tenth = correlator.correlate(event("message 10"));
    expect(tenth.event?.message).toBe("(combined from similar events): message 10");
    expect(tenth.patch).toBeUndefined();
    const eleventh = correlator.correlate(event("message 11"));
    expect(eleventh.event?.message).toBe("(combined from similar events): message 11");
    expect(eleventh.event?.metadata.name).toBe(tenth.event?.metadata.name);
    expect(eleventh.patch?.count).toBe(2);
  });

  it("starts aggregation over after 10 quiet minutes, and keeps other reasons apart", () => {
    const { correlator, event, advance } = setup();
    for (let i = 1; i <= 9; i++) correlator.correlate(event(`m${i}`));
    expect(correlator.correlate(event("other", "FailedCreate")).event?.message).toBe("other");
    advance(600_001);
    expect(correlator.correlate(event("m10")).event?.message).toBe("m10");
  });

  it("drops events about one object beyond a burst of 25, refilling one per 5 minutes", () => {
    const { correlator, event, advance } = setup();
    const written = Array.from(
      { length: 30 },
      (_, i) => correlator.correlate(event(`m${i % 5}`, `R${i}`)).event,
    );
    expect(written.filter(Boolean)).toHaveLength(25);
    advance(299_000);
    expect(correlator.correlate(event("late", "R99")).event).toBeUndefined();
    advance(1_000);
    expect(correlator.correlate(event("later", "R100")).event?.message).toBe("later");
  });
});
