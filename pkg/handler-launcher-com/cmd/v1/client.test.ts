import * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../../api/generated/v1.js";
import type { UnaryHandlers } from "../../grpc-unix.js";
import { addUnaryService } from "../../grpc-unix.js";
import { serviceDefinition } from "../../proto.js";
import type { SocketServer } from "../../testing.js";
import { serveOnTempSocket } from "../../testing.js";
import { LauncherClient, LauncherCommandError } from "./client.js";
import type { CmdMethods, VMIRequest } from "./messages.js";
import { CMD_METHOD_NAMES } from "./messages.js";
import type { CmdInfoMethods } from "./server.js";
import { addCmdService } from "./server.js";

const vmi: VirtualMachineInstance = {
  apiVersion: "kubevirt.io/v1",
  kind: "VirtualMachineInstance",
  metadata: { name: "testvmi", namespace: "default", uid: "1234" },
  spec: { domain: { devices: {} } },
};

/** Every method fails loudly unless the test overrides it. */
function handlers(overrides: Partial<UnaryHandlers<CmdMethods>>): UnaryHandlers<CmdMethods> {
  const unexpected = Object.fromEntries(
    CMD_METHOD_NAMES.map((name) => [name, () => Promise.reject(new Error(`unexpected call ${name}`))]),
  ) as unknown as UnaryHandlers<CmdMethods>;
  return { ...unexpected, ...overrides };
}

let server: SocketServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("LauncherClient against a Cmd server on a unix socket", () => {
  it("sends the VMI as JSON bytes with the options, and succeeds on success", async () => {
    const received: VMIRequest[] = [];
    server = await serveOnTempSocket("launcher-sock", (s) =>
      addCmdService(
        s,
        handlers({
          SyncVirtualMachine: (request) => {
            received.push(request);
            return Promise.resolve({ success: true });
          },
        }),
      ),
    );
    const client = await LauncherClient.connect(server.socketPath);
    await client.syncVirtualMachine(vmi, { MemBalloonStatsPeriod: 10 });
    client.close();
    expect(received).toHaveLength(1);
    expect(JSON.parse(received[0]?.vmi?.vmiJson.toString() ?? "")).toEqual(vmi);
    expect(received[0]?.options?.MemBalloonStatsPeriod).toBe(10);
  });

  it("turns a failed Response into an error naming the command, as upstream words it", async () => {
    server = await serveOnTempSocket("launcher-sock", (s) =>
      addCmdService(
        s,
        handlers({ KillVirtualMachine: () => Promise.resolve({ success: false, message: "no domain" }) }),
      ),
    );
    const client = await LauncherClient.connect(server.socketPath);
    await expect(client.killVirtualMachine(vmi)).rejects.toThrow(
      'server error. command Kill failed: "no domain"',
    );
    client.close();
  });

  it("reports a gRPC failure with its status code", async () => {
    server = await serveOnTempSocket("launcher-sock", (s) =>
      addCmdService(s, handlers({ Ping: () => Promise.reject(new Error("broken")) })),
    );
    const client = await LauncherClient.connect(server.socketPath);
    const failure = await client.ping().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LauncherCommandError);
    expect((failure as LauncherCommandError).code).toBe(grpc.status.INTERNAL);
    expect((failure as Error).message).toBe("command Ping failed with INTERNAL: 13 INTERNAL: broken");
    client.close();
  });

  it("returns no domain for an empty GetDomain answer, and the version from GetQemuVersion", async () => {
    server = await serveOnTempSocket("launcher-sock", (s) =>
      addCmdService(
        s,
        handlers({
          GetDomain: () => Promise.resolve({ response: { success: true } }),
          GetQemuVersion: () => Promise.resolve({ response: { success: true }, version: "7.2.0" }),
        }),
      ),
    );
    const client = await LauncherClient.connect(server.socketPath);
    expect(await client.getDomain()).toBeUndefined();
    expect(await client.getQemuVersion()).toBe("7.2.0");
    client.close();
  });

  it("refuses a launcher that speaks no Cmd version it knows", async () => {
    server = await serveOnTempSocket("launcher-sock", (s) =>
      addUnaryService<CmdInfoMethods>(s, serviceDefinition("kubevirt.cmd.info.CmdInfo"), {
        Info: () => Promise.resolve({ supportedCmdVersions: [7] }),
      }),
    );
    await expect(LauncherClient.connect(server.socketPath)).rejects.toThrow(
      "could not check cmd server version: no compatible version found, server: [7], client: [1]",
    );
  });

  it("fails to connect when nothing listens", async () => {
    await expect(LauncherClient.connect("/nonexistent/launcher-sock")).rejects.toThrow(/failed to dial/);
  });
});
