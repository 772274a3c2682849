import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../../controller/log.js";
import { defaultedVMI } from "../converter/testing.js";
import { FakeLibvirt } from "../testing/fake-libvirt.js";
import { FSFreezer } from "./fsfreeze.js";

const DOMAIN = "default_testvmi";

describe("FSFreezer", () => {
  let fake: FakeLibvirt;
  const vmi = defaultedVMI({ domain: { devices: {} } });

  beforeEach(async () => {
    vi.useFakeTimers();
    fake = new FakeLibvirt();
    await fake.domainDefineXML(`<domain><name>${DOMAIN}</name></domain>`);
    fake.agent.connected = true;
  });
  afterEach(() => vi.useRealTimers());

  const thaws = () => fake.calls.filter((call) => call.startsWith("fsthaw"));

  it("thaws by itself once the unfreeze timeout passes", async () => {
    const freezer = new FSFreezer(fake, silentLogger);
    await freezer.freeze(vmi, 5);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(thaws()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(thaws()).toEqual([`fsthaw ${DOMAIN}`]);
    expect(fake.agent.state.fsFreezeStatus).toBe("thawed");
  });

  it("an unfreeze in time disarms the safety thaw; a timeout of 0 arms none", async () => {
    const freezer = new FSFreezer(fake, silentLogger);
    await freezer.freeze(vmi, 5);
    await freezer.unfreeze(vmi);
    await freezer.freeze(vmi, 0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(thaws()).toEqual([`fsthaw ${DOMAIN}`]);
    expect(fake.agent.state.fsFreezeStatus).toBe("frozen");
  });
});
