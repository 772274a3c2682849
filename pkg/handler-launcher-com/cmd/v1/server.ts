// Registers the Cmd service (and CmdInfo, its version negotiation) on a gRPC server.
import type * as grpc from "@grpc/grpc-js";
import type { UnaryHandlers } from "../../grpc-unix.js";
import { addUnaryService } from "../../grpc-unix.js";
import { serviceDefinition } from "../../proto.js";
import { CMD_VERSION } from "../../version.js";
import type { CmdMethods } from "./messages.js";

export interface CmdInfoMethods {
  Info: { request: Record<string, never>; response: { supportedCmdVersions: number[] } };
}

export function addCmdService(server: grpc.Server, handlers: UnaryHandlers<CmdMethods>): void {
  addUnaryService<CmdInfoMethods>(server, serviceDefinition("kubevirt.cmd.info.CmdInfo"), {
    // The only version so far; older ones are listed here once they are served.
    Info: () => Promise.resolve({ supportedCmdVersions: [CMD_VERSION] }),
  });
  addUnaryService(server, serviceDefinition("kubevirt.cmd.v1.Cmd"), handlers);
}
