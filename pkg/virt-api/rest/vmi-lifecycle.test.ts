// softreboot, reset, freeze and unfreeze: upstream's checks, then for real with no cluster through virt-api,
// mutual TLS and virt-handler's endpoints to a fake launcher (testing/handler-put-fixture.ts).
import { describe, expect, it } from "vitest";
import { startLifecycleServer } from "../../virt-handler/rest/testing/lifecycle-server.js";
import { messageOf, route, testVMI as vmi, useHandlerPutFixture } from "./testing/handler-put-fixture.js";
import { decodeFreeze, rewordReset, validateSoftReboot } from "./vmi-lifecycle.js";

const conflictOn = (why: string) =>
  `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": ${why}`;
const PAUSED = { type: "Paused", status: "True" };
const AGENT = { type: "AgentConnected", status: "True" };
const noAcpi = { domain: { devices: {}, features: { acpi: { enabled: false } } } };

describe("soft reboot's checks", () => {
  it.each([
    ["running", vmi({ phase: "Running" }), undefined],
    ["not running", vmi({ phase: "Scheduled" }), conflictOn("VM is not running")],
    ["paused", vmi({ phase: "Running", conditions: [PAUSED] }), conflictOn("VMI is paused")],
    [
      "without agent and ACPI",
      vmi({ phase: "Running" }, noAcpi),
      conflictOn("VMI neither have the agent connected nor the ACPI feature enabled"),
    ],
    ["without ACPI, with the agent", vmi({ phase: "Running", conditions: [AGENT] }, noAcpi), undefined],
  ] as const)("%s", (_case, input, expected) => {
    const status = validateSoftReboot(input);
    expect(status?.message).toEqual(expected);
    if (status) expect(status.code).toBe(409);
  });
});

describe("reset's rewording", () => {
  it("explains a failure by the phase of a VMI that is not running, and leaves the others alone", () => {
    expect(rewordReset(vmi({ phase: "Scheduled" }), "boom")).toBe(
      "Failed to reset non-running VMI with phase Scheduled: boom",
    );
    expect(rewordReset(vmi({ phase: "Running" }), "boom")).toBe("boom");
    expect(rewordReset(undefined, "not found")).toBe("not found");
  });
});

describe("the freeze body", () => {
  it.each([{ unfreezeTimeout: "5m" }, { unfreezeTimeout: "0s" }, { unfreezeTimeout: "1h2m3.5s" }])(
    "%j is taken",
    (body) => {
      expect(decodeFreeze(body)).toEqual({ ok: true, dryRun: false });
    },
  );

  it.each([
    [undefined, "Unfreeze timeout in freeze request is not set"],
    [{}, "Unfreeze timeout in freeze request is not set"],
    [
      { unfreezeTimeout: "soon" },
      'Can not unmarshal Request body to struct, error: unfreezeTimeout: time: invalid duration "soon"',
    ],
    [
      { unfreezeTimeout: 300 },
      'Can not unmarshal Request body to struct, error: unfreezeTimeout: expected a duration such as "5m", got 300',
    ],
    [[1], "Can not unmarshal Request body to struct, error: expected a FreezeUnfreezeTimeout object"],
  ])("%j is a BadRequest: %s", (body, message) => {
    const decoded = decodeFreeze(body);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect([decoded.status.code, decoded.status.message]).toEqual([400, message]);
  });
});

const fixture = useHandlerPutFixture(startLifecycleServer);
const { call, launcherCalls, events, apiVMIs, handlerVMIs } = fixture;

describe("PUT .../virtualmachineinstances/{name}/softreboot|reset|freeze|unfreeze", () => {
  it.each(["v1", "v1alpha3"])("%s: each reaches the launcher through virt-handler", async (version) => {
    for (const verb of ["softreboot", "reset", "unfreeze"]) {
      expect(await call("PUT", route(verb, version))).toEqual({ code: 200, body: "" });
    }
    const freeze = await call("PUT", route("freeze", version), JSON.stringify({ unfreezeTimeout: "5m" }));
    expect(freeze).toEqual({ code: 200, body: "" });
    expect(launcherCalls).toEqual([
      "SoftReboot testvmi",
      "Reset testvmi",
      "Unfreeze testvmi",
      "Freeze testvmi 300",
    ]);
    expect(events).toEqual([
      "SoftRebooted: VirtualMachineInstance soft rebooted",
      "Reset: VirtualMachineInstance reset",
    ]);
  });

  it("soft reboot of a paused VMI is a Conflict, and virt-handler is not called", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    const answer = await call("PUT", route("softreboot"));
    expect(answer.code).toBe(409);
    expect(messageOf(answer.body)).toBe(conflictOn("VMI is paused"));
    expect(launcherCalls).toEqual([]);
  });

  it("freeze and unfreeze of a VMI that is not running are Conflicts with upstream's two wordings", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Scheduled" }));
    const freeze = await call("PUT", route("freeze"), JSON.stringify({ unfreezeTimeout: "1m" }));
    expect([freeze.code, messageOf(freeze.body)]).toEqual([409, conflictOn("VM is not running")]);
    const unfreeze = await call("PUT", route("unfreeze"));
    expect([unfreeze.code, messageOf(unfreeze.body)]).toEqual([409, conflictOn("VMI is not running")]);
    expect(launcherCalls).toEqual([]);
  });

  it("a malformed unfreezeTimeout is a BadRequest naming it, before the VMI is read", async () => {
    apiVMIs.clear();
    const answer = await call("PUT", route("freeze"), JSON.stringify({ unfreezeTimeout: "5 minutes" }));
    expect(answer.code).toBe(400);
    expect(messageOf(answer.body)).toBe(
      'Can not unmarshal Request body to struct, error: unfreezeTimeout: time: invalid duration "5 minutes"',
    );
  });

  it("a refused freeze comes back with virt-handler's 400 and leaves a FreezeError event", async () => {
    fixture.launcherFails = new Error(
      `server error. command Freeze failed: "LibvirtError(Code=86, Domain=10, Message='Guest agent is not responding: QEMU guest agent is not connected')"`,
    );
    const answer = await call("PUT", route("freeze"), JSON.stringify({ unfreezeTimeout: "5m" }));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      `Internal error occurred: unexpected return code 400 (400 Bad Request), message: ${fixture.launcherFails.message}`,
    );
    expect(events).toEqual([`Warning FreezeError: Failed to freeze VMI: ${fixture.launcherFails.message}`]);
  });

  it("reset of a VMI that is not running yet says so, whether refused here or by virt-handler", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Pending" }));
    const pending = await call("PUT", route("reset"));
    expect(pending.code).toBe(400);
    expect(messageOf(pending.body)).toBe(
      "Failed to reset non-running VMI with phase Pending: Unable to connect to VirtualMachineInstance because phase is Pending instead of Running or Scheduled",
    );
    apiVMIs.set("testvmi", vmi({ phase: "Scheduled" }));
    handlerVMIs.clear();
    const scheduled = await call("PUT", route("reset"));
    expect(scheduled.code).toBe(500);
    expect(messageOf(scheduled.body)).toBe(
      "Internal error occurred: Failed to reset non-running VMI with phase Scheduled: unexpected return code 404 (404 Not Found), message: VMI default/testvmi does not exist",
    );
  });

  it("a missing VMI is NotFound for each, reset's included", async () => {
    for (const verb of ["softreboot", "reset", "freeze", "unfreeze"]) {
      const answer = await call(
        "PUT",
        route(verb, "v1", "nothere"),
        JSON.stringify({ unfreezeTimeout: "1m" }),
      );
      expect([verb, answer.code, messageOf(answer.body)]).toEqual([
        verb,
        404,
        'virtualmachineinstance.kubevirt.io "nothere" not found',
      ]);
    }
  });

  it("the access review's refusal is Forbidden before any check", async () => {
    fixture.allow = false;
    const answer = await call("PUT", route("softreboot"));
    expect(answer.code).toBe(403);
    expect(launcherCalls).toEqual([]);
  });

  it("discovery lists every subresource that goes to virt-handler", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const answer = await call("GET", `/apis/subresources.kubevirt.io/${version}`);
      const names = (JSON.parse(answer.body) as { resources: { name: string }[] }).resources.map(
        (r) => r.name,
      );
      expect(names).toEqual(
        expect.arrayContaining(
          ["pause", "unpause", "freeze", "unfreeze", "softreboot", "reset"].map(
            (verb) => `virtualmachineinstances/${verb}`,
          ),
        ),
      );
    }
  });
});
