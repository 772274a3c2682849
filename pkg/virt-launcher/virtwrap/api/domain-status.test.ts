import { describe, expect, it } from "vitest";
import * as libvirt from "../../../libvirt/generated/libvirt-api.js";
import { convReason, convState } from "./domain-status.js";

describe("libvirt state -> KubeVirt LifeCycle and reason", () => {
  it.each([
    [libvirt.VIR_DOMAIN_RUNNING, libvirt.VIR_DOMAIN_RUNNING_BOOTED, "Running", "Unknown"],
    [libvirt.VIR_DOMAIN_PAUSED, libvirt.VIR_DOMAIN_PAUSED_USER, "Paused", "User"],
    [libvirt.VIR_DOMAIN_PAUSED, libvirt.VIR_DOMAIN_PAUSED_IOERROR, "Paused", "IOError"],
    [libvirt.VIR_DOMAIN_PAUSED, libvirt.VIR_DOMAIN_PAUSED_STARTING_UP, "Paused", "StartingUp"],
    [libvirt.VIR_DOMAIN_SHUTDOWN, libvirt.VIR_DOMAIN_SHUTDOWN_USER, "ShuttingDown", "User"],
    [libvirt.VIR_DOMAIN_SHUTOFF, libvirt.VIR_DOMAIN_SHUTOFF_SHUTDOWN, "Shutoff", "Shutdown"],
    [libvirt.VIR_DOMAIN_SHUTOFF, libvirt.VIR_DOMAIN_SHUTOFF_DESTROYED, "Shutoff", "Destroyed"],
    [libvirt.VIR_DOMAIN_SHUTOFF, libvirt.VIR_DOMAIN_SHUTOFF_CRASHED, "Shutoff", "Crashed"],
    [libvirt.VIR_DOMAIN_SHUTOFF, libvirt.VIR_DOMAIN_SHUTOFF_MIGRATED, "Shutoff", "Migrated"],
    [libvirt.VIR_DOMAIN_CRASHED, libvirt.VIR_DOMAIN_CRASHED_PANICKED, "Crashed", "Panicked"],
    [libvirt.VIR_DOMAIN_NOSTATE, 0, "NoState", "Unknown"],
    [libvirt.VIR_DOMAIN_PMSUSPENDED, 0, "PMSuspended", "Unknown"],
  ])("state %i reason %i -> %s/%s", (state, reason, lifeCycle, stateReason) => {
    expect(convState(state)).toBe(lifeCycle);
    expect(convReason(state, reason)).toBe(stateReason);
  });

  it("maps values libvirt may add later to upstream's empty value", () => {
    expect(convState(99)).toBe("");
    expect(convReason(libvirt.VIR_DOMAIN_SHUTOFF, 99)).toBe("");
  });
});
