import { beforeEach, describe, expect, it } from "vitest";
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
    [
      "/v1/namespaces/default/virtualmachineinstances/testvmi/softreboot",
      { namespace: "default", name: "testvmi", command: "softreboot" },
    ],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/soft-reboot", undefined],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/console", undefined],
    ["/v1/namespaces/default/virtualmachineinstances/testvmi/pause/extra", undefined],
  ])("%s", (url, expected) => {
    expect(parseLifecyclePath(url)).toEqual(expected);
  });
});

describe("LifecycleHandler.serve", () => {
  const target = { namespace: "default", name: "testvmi", command: "pause" as const };
  const calls: string[] = [];
  const events: string[] = [];
  let fails: Error | undefined;
  const record = (call: string) => async () => {
    if (fails) throw fails;
    calls.push(call);
  };
  const launcher = {
    pauseVirtualMachine: record("Pause"),
    unpauseVirtualMachine: record("Unpause"),
    freezeVirtualMachine: async (_vmi: VirtualMachineInstance, seconds: number) => {
      if (fails) throw fails;
      calls.push(`Freeze ${seconds}`);
    },
    unfreezeVirtualMachine: record("Unfreeze"),
    softRebootVirtualMachine: record("SoftReboot"),
    resetVirtualMachine: record("Reset"),
  };
  const handler = new LifecycleHandler({
    getVMI: () => vmi,
    launcher: async () => launcher,
    recordEvent: (_vmi, reason, message, type = "Normal") => events.push(`${type} ${reason}: ${message}`),
    logger: silentLogger,
  });
  beforeEach(() => {
    calls.length = 0;
    events.length = 0;
    fails = undefined;
  });

  it.each([
    ["pause", "Pause", "Normal Paused: VirtualMachineInstance paused"],
    ["unpause", "Unpause", "Normal Unpaused: VirtualMachineInstance unpaused"],
    ["softreboot", "SoftReboot", "Normal SoftRebooted: VirtualMachineInstance soft rebooted"],
    ["reset", "Reset", "Normal Reset: VirtualMachineInstance reset"],
    ["unfreeze", "Unfreeze", undefined],
  ] as const)(
    "%s calls the launcher's %s, answers 202 and records upstream's event",
    async (command, call, event) => {
      expect(await handler.serve("PUT", { ...target, command })).toEqual({ code: 202 });
      expect(calls).toEqual([call]);
      expect(events).toEqual(event ? [event] : []);
    },
  );

  it.each([
    ['{"unfreezeTimeout":"5m"}', 300],
    ['{"unfreezeTimeout":"1m30.9s"}', 90],
    ['{"unfreezeTimeout":"0s"}', 0],
  ])("freeze passes %s on as whole seconds", async (body, seconds) => {
    expect(await handler.serve("PUT", { ...target, command: "freeze" }, body)).toEqual({ code: 202 });
    expect(calls).toEqual([`Freeze ${seconds}`]);
  });

  it.each([
    ["", "Unfreeze timeout in freeze request is not set"],
    ["{}", "Unfreeze timeout in freeze request is not set"],
    ['{"unfreezeTimeout":"soon"}', "failed to unmarshal unfreeze timeout"],
    ['{"unfreezeTimeout":300}', "failed to unmarshal unfreeze timeout"],
    ["{not json", "failed to unmarshal unfreeze timeout"],
  ])("freeze with body %j is a 400: %s", async (body, message) => {
    expect(await handler.serve("PUT", { ...target, command: "freeze" }, body)).toEqual({
      code: 400,
      message,
    });
    expect(calls).toEqual([]);
  });

  it("a failed freeze is a 400 and a FreezeError warning; a failed reset a 500", async () => {
    fails = new Error('server error. command Freeze failed: "guest agent is not connected"');
    const freeze = await handler.serve("PUT", { ...target, command: "freeze" }, '{"unfreezeTimeout":"1m"}');
    expect(freeze).toEqual({ code: 400, message: fails.message });
    expect(events).toEqual([`Warning FreezeError: Failed to freeze VMI: ${fails.message}`]);
    expect(await handler.serve("PUT", { ...target, command: "unfreeze" })).toEqual({
      code: 400,
      message: fails.message,
    });
    expect(await handler.serve("PUT", { ...target, command: "reset" })).toEqual({
      code: 500,
      message: fails.message,
    });
    expect(events).toHaveLength(1);
  });

  it("a VMI not in this node's cache is a 404 with upstream's words", async () => {
    const missing = new LifecycleHandler({
      getVMI: () => undefined,
      launcher: async () => launcher,
      logger: silentLogger,
    });
    expect(await missing.serve("PUT", target)).toEqual({
      code: 404,
      message: "VMI default/testvmi does not exist",
    });
  });

  it("a launcher that cannot be dialed is a 500", async () => {
    const unreachable = new LifecycleHandler({
      getVMI: () => vmi,
      launcher: async () => {
        throw new Error("dial unix /pods/x/sockets/launcher-sock: connect: connection refused");
      },
      logger: silentLogger,
    });
    expect(await unreachable.serve("PUT", target)).toEqual({
      code: 500,
      message: "dial unix /pods/x/sockets/launcher-sock: connect: connection refused",
    });
  });
});
