// Registers the Notify service (and NotifyInfo) on a gRPC server: virt-handler's side, also used
// by tests that stand in for the handler.
import type * as grpc from "@grpc/grpc-js";
import type { UnaryHandlers } from "../../grpc-unix.js";
import { addUnaryService } from "../../grpc-unix.js";
import { serviceDefinition } from "../../proto.js";
import { NOTIFY_VERSION } from "../../version.js";
import type { NotifyInfoMethods, NotifyMethods } from "./messages.js";

export function addNotifyService(server: grpc.Server, handlers: UnaryHandlers<NotifyMethods>): void {
  addUnaryService<NotifyInfoMethods>(server, serviceDefinition("kubevirt.notify.info.NotifyInfo"), {
    Info: () => Promise.resolve({ supportedNotifyVersions: [NOTIFY_VERSION] }),
  });
  addUnaryService(server, serviceDefinition("kubevirt.notify.v1.Notify"), handlers);
}
