// The handler<->launcher protocol definitions, loaded from this folder's .proto files (written
// from upstream's cmd/v1, cmd/info, notify/v1 and notify/info). Field names stay as the .proto
// spells them (keepCase), so the TS message types read like upstream's protos.
import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";

export const LOADER_OPTIONS = {
  keepCase: true,
  // uint64/int64 fields carry sizes and rates far below 2^53.
  longs: Number,
  enums: String,
  // proto3 semantics: an absent scalar reads as its zero value, an absent message as null.
  defaults: true,
  oneofs: true,
} as const;

/** The .proto files the services come from, relative to this folder (a build must ship them). */
export const PROTO_FILES = {
  "kubevirt.cmd.v1.Cmd": "cmd/v1/cmd.proto",
  "kubevirt.cmd.info.CmdInfo": "cmd/info/info.proto",
  "kubevirt.notify.v1.Notify": "notify/v1/notify.proto",
  "kubevirt.notify.info.NotifyInfo": "notify/info/info.proto",
} as const;

export type ServiceName = keyof typeof PROTO_FILES;

const loaded = new Map<ServiceName, ServiceDefinition>();

/** A service's method definitions (paths, serializers), loaded once. */
export function serviceDefinition(name: ServiceName): ServiceDefinition {
  const cached = loaded.get(name);
  if (cached) return cached;
  const file = fileURLToPath(new URL(PROTO_FILES[name], import.meta.url));
  const definition = loadSync(file, LOADER_OPTIONS)[name];
  if (!definition || !isService(definition)) {
    throw new Error(`${file} defines no service ${name}`);
  }
  const service = definition as ServiceDefinition;
  loaded.set(name, service);
  return service;
}

function isService(definition: object): boolean {
  return Object.values(definition).every((method) => typeof (method as { path?: unknown }).path === "string");
}

/** One method of a service, typed by its request and response messages. */
export function methodDefinition<Request, Response>(
  service: ServiceName,
  method: string,
): MethodDefinition<Request, Response> {
  const definition = serviceDefinition(service)[method];
  if (!definition) throw new Error(`${service} has no method ${method}`);
  return definition as MethodDefinition<Request, Response>;
}
