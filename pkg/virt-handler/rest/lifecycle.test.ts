import { describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/index.js";
import { LifecycleHandler, parseLifecyclePath } from "./lifecycle.js";

const vmi: VirtualMachineInstance = {
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} } },
  status: { phase: "Running" },
};

describe("parseLifecyclePath", () => {
  it.each([
    [
      "/v1/namespaces/default/virtualmachineinstances/testvmi/pause",
      { namespace: "default", name: "testvmi", command: "pause" },
    ],
    [
      "/v1/namespaces/ns/virtualmachineinstances/a%2Db/unpause?x=1",
      { namespace: "ns", name: "a-b", command: "unpause" },
    ],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/console", undefined],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/pause/extra", undefined],
  ])("%s", (url, expected) => {
    expect(parseLifecyclePath(url)).toEqual(expected);
  });
});

describe("LifecycleHandler.serve", () => {
  const target = { namespace: "default", name: "testvmi", command: "pause" as const };
  const calls: string[] = [];
  const launcher = {
    pauseVirtualMachine: async () => void calls.push("Pause"),
    unpauseVirtualMachine: async () => void calls.push("Unpause"),
  };

  it("calls the launcher's Pause or Unpause and answers 202", async () => {
    calls.length = 0;
    const handler = new LifecycleHandler({
      getVMI: () => vmi,
      launcher: async () => launcher,
      logger: silentLogger,
    });
    expect(await handler.serve("PUT", target)).toEqual({ code: 202 });
    expect(await handler.serve("PUT", { ...target, command: "unpause" })).toEqual({ code: 202 });
    expect(calls).toEqual(["Pause", "Unpause"]);
  });

  it("a VMI not in this node's cache is a 404 with upstream's words", async () => {
    const handler = new LifecycleHandler({
      getVMI: () => undefined,
      launcher: async () => launcher,
      logger: silentLogger,
    });
    expect(await handler.serve("PUT", target)).toEqual({
      code: 404,
      message: "VMI default/testvmi does not exist",
    });
  });

  it("a launcher that cannot be dialed is a 500", async () => {
    const handler = new LifecycleHandler({
      getVMI: () => vmi,
      launcher: async () => {
        throw new Error("dial unix /pods/x/sockets/launcher-sock: connect: connection refused");
      },
      logger: silentLogger,
    });
    expect(await handler.serve("PUT", target)).toEqual({
      code: 500,
      message: "dial unix /pods/x/sockets/launcher-sock: connect: connection refused",
    });
  });
});
