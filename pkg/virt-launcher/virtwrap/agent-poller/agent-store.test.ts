import { describe, expect, it } from "vitest";
import type { DomainGuestInfo } from "./agent-store.js";
import { AsyncAgentStore } from "./agent-store.js";

const os = {
  name: "Debian GNU/Linux",
  kernelRelease: "",
  version: "",
  prettyName: "",
  versionId: "12",
  kernelVersion: "",
  machine: "x86_64",
  id: "debian",
};

describe("AsyncAgentStore", () => {
  it("announces a first or changed OS, interfaces or freeze status, and nothing else", () => {
    const store = new AsyncAgentStore();
    const updates: DomainGuestInfo[] = [];
    store.onUpdate((info) => updates.push(info));
    store.store("os", os);
    store.store("os", { ...os });
    store.store("hostname", "testvmi");
    store.store("users", [{ name: "root", domain: "", loginTime: 1 }]);
    store.store("interfaces", undefined); // the first answer counts even when it names no interface
    store.store("interfaces", undefined);
    store.store("guest-fsfreeze-status", "thawed");
    store.store("guest-fsfreeze-status", "frozen");
    expect(updates).toEqual([
      { osInfo: os, interfaces: undefined, fsFreezeStatus: undefined },
      { osInfo: os, interfaces: undefined, fsFreezeStatus: undefined },
      { osInfo: os, interfaces: undefined, fsFreezeStatus: "thawed" },
      { osInfo: os, interfaces: undefined, fsFreezeStatus: "frozen" },
    ]);
  });

  it("answers empty before the agent said anything", () => {
    const store = new AsyncAgentStore();
    expect(store.domainGuestInfo()).toEqual({
      osInfo: undefined,
      interfaces: undefined,
      fsFreezeStatus: undefined,
    });
    expect(store.getSysInfo()).toEqual({
      hostname: "",
      osInfo: { ...os, name: "", versionId: "", machine: "", id: "" },
      timezone: { zone: "", offset: 0 },
    });
    expect(store.getGA()).toEqual({ version: "", supportedCommands: [] });
    expect(store.getUsers(-1)).toEqual([]);
    expect(store.getFS(10)).toEqual([]);
  });

  it("limits users and filesystems on request, -1 for all", () => {
    const store = new AsyncAgentStore();
    const users = Array.from({ length: 12 }, (_, i) => ({ name: `u${i}`, domain: "", loginTime: i }));
    store.store("users", users);
    expect(store.getUsers(10)).toEqual(users.slice(0, 10));
    expect(store.getUsers(-1)).toEqual(users);
    const fs = { name: "vda1", mountpoint: "/", type: "ext4", usedBytes: 1, totalBytes: 2, disk: [] };
    store.store("guest-get-fsinfo", [fs]);
    expect(store.getFS(10)).toEqual([fs]);
  });

  it("stops announcing to a listener that unsubscribed", () => {
    const store = new AsyncAgentStore();
    let calls = 0;
    const unsubscribe = store.onUpdate(() => calls++);
    store.store("os", os);
    unsubscribe();
    store.store("guest-fsfreeze-status", "frozen");
    expect(calls).toBe(1);
  });
});
