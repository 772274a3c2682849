// A libvirt client for Node that speaks libvirt's RPC protocol (XDR over the daemon's unix
// socket) directly; the protocol's types and procedure tables are generated from libvirt's own
// definitions by hack/libvirt-gen.
export { LibvirtClient } from "./client.js";
export type { DomainEventSubscription } from "./client.js";
export { LibvirtConnection } from "./connection.js";
export type { CallTarget, ConnectionOptions, IncomingMessage } from "./connection.js";
export { lifecycleNames, toDomainEvent } from "./domain-events.js";
export type { Domain, DomainEvent } from "./domain-events.js";
export {
  LibvirtConnectionClosedError,
  LibvirtError,
  LibvirtNotSupportedError,
  LibvirtProtocolError,
} from "./errors.js";
export type { KeepAliveOptions } from "./keepalive.js";
export { LibvirtRpc, decodeMessage } from "./rpc-client.js";
export type { ArgsOf, DecodedMessage, ProcedureName, RetOf } from "./rpc-client.js";
export { typedParamsToRecord } from "./typed-params.js";
export type { TypedParamValue } from "./typed-params.js";
export { uuidToBytes, uuidToString } from "./uuid.js";
export * from "./generated/libvirt-api.js";
