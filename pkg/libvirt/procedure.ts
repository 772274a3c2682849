// Descriptions of libvirt RPC programs and procedures; the generated procedure tables are built
// from these helpers, and the connection/client read them to encode calls and decode replies.
import type { XdrCodec } from "./xdr.js";

type Payload = XdrCodec<unknown> | null;

export interface ProcedureInfo<
  Args extends Payload = Payload,
  Ret extends Payload = Payload,
  Msg extends Payload = Payload,
> {
  /** The procedure number on the wire. */
  readonly number: number;
  /** "call": a CALL answered by a REPLY; "message": sent unprompted as a MESSAGE (events, keepalive). */
  readonly kind: "call" | "message";
  readonly args: Args;
  readonly ret: Ret;
  /** Payload of a message. */
  readonly message: Msg;
  /** "read": the daemon streams data to the client after the reply; "write": the client streams. */
  readonly stream: "read" | "write" | null;
  /** libvirtd serves high-priority calls on separate workers; they never wait on a guest. */
  readonly priority: "high" | "low";
}

export interface ProgramInfo<Procedures extends Readonly<Record<string, ProcedureInfo>>> {
  readonly name: string;
  readonly program: number;
  readonly version: number;
  readonly procedures: Procedures;
  /** Procedure names by wire number, for dispatching incoming messages. */
  readonly namesByNumber: ReadonlyMap<number, string>;
}

export type AnyProgram = ProgramInfo<Readonly<Record<string, ProcedureInfo>>>;

/** The TypeScript value a payload codec stands for; `void` when the procedure has no payload. */
export type PayloadValue<P> = P extends XdrCodec<infer T> ? T : void;

export function rpcCall<Args extends Payload, Ret extends Payload>(
  number: number,
  args: Args,
  ret: Ret,
  options: { stream?: "read" | "write"; priority?: "high" | "low" } = {},
): ProcedureInfo<Args, Ret, null> {
  return {
    number,
    kind: "call",
    args,
    ret,
    message: null,
    stream: options.stream ?? null,
    priority: options.priority ?? "low",
  };
}

export function rpcMessage<Msg extends Payload>(
  number: number,
  message: Msg,
): ProcedureInfo<null, null, Msg> {
  return { number, kind: "message", args: null, ret: null, message, stream: null, priority: "low" };
}

export function defineProgram<Procedures extends Readonly<Record<string, ProcedureInfo>>>(
  name: string,
  program: number,
  version: number,
  procedures: Procedures,
): ProgramInfo<Procedures> {
  const namesByNumber = new Map<number, string>();
  for (const [procedureName, info] of Object.entries(procedures))
    namesByNumber.set(info.number, procedureName);
  return { name, program, version, procedures, namesByNumber };
}
