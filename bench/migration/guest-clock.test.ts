import { describe, expect, it } from "vitest";
import { BenchError } from "../common/bench-error.js";
import { guestDowntimeS, parseUptime } from "./guest-clock.js";

describe("guest clock", () => {
  it("reads the first field of /proc/uptime as the guest prints it", () => {
    expect(parseUptime("1234.56")).toBe(1234.56);
    expect(parseUptime(" 17\n")).toBe(17);
    expect(() => parseUptime("cut: /proc/uptime: No such file")).toThrow(BenchError);
    expect(() => parseUptime("")).toThrow(/unexpected \/proc\/uptime/);
  });

  it("is the time the host saw pass that the guest's clock did not", () => {
    const before = { wallMs: 10_000, uptimeS: 100 };
    // 12 s passed on the host, 11.75 s in the guest: it stood still for 0.25 s.
    expect(guestDowntimeS(before, { wallMs: 22_000, uptimeS: 111.75 })).toBeCloseTo(0.25, 9);
    // No pause at all: the readings' jitter can make it a little negative.
    expect(guestDowntimeS(before, { wallMs: 22_000, uptimeS: 112.02 })).toBeCloseTo(-0.02, 9);
  });

  it("says so when the guest rebooted instead of moving", () => {
    expect(() => guestDowntimeS({ wallMs: 0, uptimeS: 100 }, { wallMs: 30_000, uptimeS: 12 })).toThrow(
      /rebooted during the migration: its uptime went from 100 s to 12 s in 30\.0 s/,
    );
    // Up longer than before, but not since the first reading: booted again meanwhile.
    expect(() => guestDowntimeS({ wallMs: 0, uptimeS: 10 }, { wallMs: 60_000, uptimeS: 25 })).toThrow(
      /rebooted/,
    );
  });
});
