// Pause and unpause for real, with no cluster: virt-api's HTTPS server → mutual TLS → virt-handler's
// lifecycle endpoint → a fake launcher (testing/handler-put-fixture.ts).
import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../api/generated/v1.js";
import { silentLogger } from "../../controller/index.js";
import { LifecycleHandler } from "../../virt-handler/rest/lifecycle.js";
import { validatePause, validateUnpause } from "./pause.js";
import { startLifecycleServer } from "../../virt-handler/rest/testing/lifecycle-server.js";
import { messageOf, route, testVMI as vmi, useHandlerPutFixture } from "./testing/handler-put-fixture.js";

const PAUSED = { type: "Paused", status: "True", reason: "PausedByUser" };

describe("upstream's checks before anything reaches virt-handler", () => {
  const conflictOn = (why: string) =>
    `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": ${why}`;
  it.each([
    ["running", vmi({ phase: "Running" }), undefined],
    ["scheduled", vmi({ phase: "Scheduled" }), [409, conflictOn("VM is not running")]],
    [
      "already paused",
      vmi({ phase: "Running", conditions: [PAUSED] }),
      [409, conflictOn("VMI is already paused")],
    ],
    [
      "an exec liveness probe",
      vmi({ phase: "Running" }, { livenessProbe: { exec: { command: ["true"] } } }),
      [
        403,
        'virtualmachineinstance.kubevirt.io "testvmi" is forbidden: Pausing VMIs with a non-GuestAgentPing LivenessProbe is not supported',
      ],
    ],
    [
      "a guest agent ping probe",
      vmi({ phase: "Running" }, { livenessProbe: { guestAgentPing: {} } }),
      undefined,
    ],
  ] as const)("pause: %s", (_case, input, expected) => {
    const status = validatePause(input);
    expect(status && [status.code, status.message]).toEqual(expected);
  });

  it.each([
    ["paused", vmi({ phase: "Running", conditions: [PAUSED] }), undefined],
    ["not paused", vmi({ phase: "Running" }), [409, conflictOn("VMI is not paused")]],
    ["not running", vmi({ phase: "Pending", conditions: [PAUSED] }), [409, conflictOn("VMI is not running")]],
  ] as const)("unpause: %s", (_case, input, expected) => {
    const status = validateUnpause(input);
    expect(status && [status.code, status.message]).toEqual(expected);
  });
});

const fixture = useHandlerPutFixture(startLifecycleServer);
const { call, launcherCalls, events, apiVMIs, apiVMs, handlerVMIs } = fixture;

describe("PUT .../virtualmachineinstances/{name}/pause|unpause", () => {
  it.each(["v1", "v1alpha3"])("%s: pause reaches the launcher through virt-handler", async (version) => {
    const answer = await call("PUT", route("pause", version), "{}");
    expect(answer).toEqual({ code: 200, body: "" });
    expect(launcherCalls).toEqual(["Pause testvmi"]);
    expect(events).toEqual(["Paused: VirtualMachineInstance paused"]);
  });

  it("unpause of a paused VMI reaches the launcher", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    const answer = await call("PUT", route("unpause"));
    expect(answer.code).toBe(200);
    expect(launcherCalls).toEqual(["Unpause testvmi"]);
    expect(events).toEqual(["Unpaused: VirtualMachineInstance unpaused"]);
  });

  it("a dry run checks everything and changes nothing", async () => {
    const answer = await call("PUT", route("pause"), JSON.stringify({ dryRun: ["All"] }));
    expect(answer.code).toBe(200);
    expect(launcherCalls).toEqual([]);
  });

  it("pausing a paused VMI is a Conflict, and virt-handler is not called", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(409);
    expect(messageOf(answer.body)).toBe(
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI is already paused',
    );
    expect(launcherCalls).toEqual([]);
  });

  it("a missing VMI is NotFound", async () => {
    const answer = await call("PUT", route("pause", "v1", "nothere"));
    expect(answer.code).toBe(404);
    expect(messageOf(answer.body)).toBe('virtualmachineinstance.kubevirt.io "nothere" not found');
  });

  it("unpause waits for a VM snapshot in progress", async () => {
    apiVMIs.set("testvmi", vmi({ phase: "Running", conditions: [PAUSED] }));
    apiVMs.set("testvmi", {
      metadata: { name: "testvmi" },
      spec: { template: {} },
      status: { snapshotInProgress: "snap" },
    } as VirtualMachine);
    const answer = await call("PUT", route("unpause"));
    expect(answer.code).toBe(409);
    expect(messageOf(answer.body)).toBe(
      'Operation cannot be fulfilled on virtualmachine.kubevirt.io "testvmi": VM snapshot is in progress',
    );
  });

  it("a body that is not PauseOptions is a BadRequest", async () => {
    const answer = await call("PUT", route("pause"), JSON.stringify({ dryRun: "All" }));
    expect(answer.code).toBe(400);
    expect(messageOf(answer.body)).toMatch(/^Can not unmarshal Request body to struct, error: dryRun/);
  });

  it("the access review's refusal is Forbidden before any check", async () => {
    fixture.allow = false;
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(403);
    expect(launcherCalls).toEqual([]);
  });

  it("a launcher failure comes back as an InternalError with virt-handler's answer", async () => {
    fixture.launcherFails = new Error(
      "virError(Code=55, Domain=10, Message='Requested operation is not valid')",
    );
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      "Internal error occurred: unexpected return code 500 (500 Internal Server Error), message: virError(Code=55, Domain=10, Message='Requested operation is not valid')",
    );
  });

  it("a VMI virt-handler does not know is its 404, passed on", async () => {
    handlerVMIs.clear();
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      "Internal error occurred: unexpected return code 404 (404 Not Found), message: VMI default/testvmi does not exist",
    );
  });

  it("a handler that never answers is cut off by the deadline", async () => {
    fixture.portOverride = fixture.silentPort;
    const started = Date.now();
    const answer = await call("PUT", route("pause"));
    expect(answer.code).toBe(500);
    expect(messageOf(answer.body)).toBe(
      `Internal error occurred: dial tcp 127.0.0.1:${fixture.silentPort}: i/o timeout`,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("discovery lists both, as they are registered", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const answer = await call("GET", `/apis/subresources.kubevirt.io/${version}`);
      const names = (JSON.parse(answer.body) as { resources: { name: string }[] }).resources.map(
        (r) => r.name,
      );
      expect(names).toEqual(
        expect.arrayContaining(["virtualmachineinstances/pause", "virtualmachineinstances/unpause"]),
      );
    }
  });

  it("virt-handler's endpoint answers only PUT", async () => {
    const handler = new LifecycleHandler({
      getVMI: () => vmi({ phase: "Running" }),
      launcher: async () => undefined,
      logger: silentLogger,
    });
    expect(await handler.serve("GET", { namespace: "default", name: "testvmi", command: "pause" })).toEqual({
      code: 405,
      message: "405: Method Not Allowed",
    });
    expect(await handler.serve("PUT", { namespace: "default", name: "testvmi", command: "pause" })).toEqual({
      code: 500,
      message: "No command socket found for vmi 7d0e1f2a-aaaa",
    });
  });
});
