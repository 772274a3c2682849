// Typed calls by procedure name over a LibvirtConnection, for every procedure of the generated
// tables: arguments are encoded with the procedure's codec and the reply decoded with its own.
// Incoming messages (events) are decoded the same way. Procedures the daemon streams data back from
// are called with download(); those that send a stream or pass file descriptors need transport
// features this client does not have, and fail with a clear error.
import type { CallTarget, ConnectionOptions, DownloadOptions, IncomingMessage } from "./connection.js";
import { LibvirtConnection } from "./connection.js";
import { LibvirtNotSupportedError, LibvirtProtocolError } from "./errors.js";
import { qemuProgram } from "./generated/qemu-protocol.js";
import { remoteProgram } from "./generated/remote-protocol.js";
import type { AnyProgram, PayloadValue, ProcedureInfo } from "./procedure.js";
import { decodeXdr, encodeXdr } from "./xdr.js";

/** Procedures whose calls or replies carry file descriptors (SCM_RIGHTS), which Node sockets cannot pass. */
const FD_PASSING_PROCEDURES = new Set([
  "REMOTE_PROC_DOMAIN_OPEN_GRAPHICS",
  "REMOTE_PROC_DOMAIN_OPEN_GRAPHICS_FD",
  "REMOTE_PROC_DOMAIN_CREATE_WITH_FILES",
  "REMOTE_PROC_DOMAIN_CREATE_XML_WITH_FILES",
  "REMOTE_PROC_DOMAIN_FD_ASSOCIATE",
  "QEMU_PROC_DOMAIN_MONITOR_COMMAND_WITH_FILES",
]);

export type ProcedureName<P extends AnyProgram> = keyof P["procedures"] & string;
export type ArgsOf<P extends AnyProgram, N extends ProcedureName<P>> = PayloadValue<
  P["procedures"][N]["args"]
>;
export type RetOf<P extends AnyProgram, N extends ProcedureName<P>> = PayloadValue<P["procedures"][N]["ret"]>;

/** A message from the daemon decoded with its procedure's codec (or the reason it could not be). */
export type DecodedMessage =
  | { program: string; procedure: string; message: object }
  | { program: string; procedure: string; error: Error };

const KNOWN_PROGRAMS: readonly AnyProgram[] = [remoteProgram, qemuProgram];

export class LibvirtRpc {
  constructor(readonly connection: LibvirtConnection) {}

  static async open(socketPath: string, options: ConnectionOptions = {}): Promise<LibvirtRpc> {
    return new LibvirtRpc(await LibvirtConnection.open(socketPath, options));
  }

  /** Calls procedure `name` of `program`; resolves with its decoded result (undefined if it has none). */
  async call<P extends AnyProgram, N extends ProcedureName<P>>(
    program: P,
    name: N,
    args: ArgsOf<P, N>,
  ): Promise<RetOf<P, N>> {
    const { target, procedure, payload } = this.prepare(program, name, args, null);
    return decodeReply(name, procedure, await this.connection.call(target, payload)) as RetOf<P, N>;
  }

  /** Calls a procedure the daemon streams data back from; its decoded result and the data. */
  async download<P extends AnyProgram, N extends ProcedureName<P>>(
    program: P,
    name: N,
    args: ArgsOf<P, N>,
    options: DownloadOptions,
  ): Promise<{ ret: RetOf<P, N>; data: Buffer }> {
    const { target, procedure, payload } = this.prepare(program, name, args, "read");
    const { reply, data } = await this.connection.download(target, payload, options);
    return { ret: decodeReply(name, procedure, reply) as RetOf<P, N>, data };
  }

  private prepare<P extends AnyProgram, N extends ProcedureName<P>>(
    program: P,
    name: N,
    args: ArgsOf<P, N>,
    stream: ProcedureInfo["stream"],
  ): { target: CallTarget; procedure: ProcedureInfo; payload: Uint8Array } {
    const procedure: ProcedureInfo | undefined = program.procedures[name];
    if (!procedure)
      throw new LibvirtNotSupportedError(`${name} is not a procedure of program ${program.name}`);
    if (procedure.kind !== "call")
      throw new LibvirtNotSupportedError(`${name} is sent by the daemon, it cannot be called`);
    if (procedure.stream !== stream) {
      throw new LibvirtNotSupportedError(
        procedure.stream === "write"
          ? `${name} is not supported yet: it streams data to the daemon, which is not implemented`
          : procedure.stream === "read"
            ? `${name} streams data back: call it with download()`
            : `${name} streams no data: call it with call()`,
      );
    }
    if (FD_PASSING_PROCEDURES.has(name)) {
      throw new LibvirtNotSupportedError(`${name} is not supported yet: it passes file descriptors`);
    }
    const target: CallTarget = {
      program: program.program,
      version: program.version,
      procedure: procedure.number,
      name,
    };
    const payload = procedure.args ? encodeXdr(procedure.args, args) : new Uint8Array();
    return { target, procedure, payload };
  }

  /** Calls a procedure of libvirt's main ("remote") program. */
  remote<N extends ProcedureName<typeof remoteProgram>>(
    name: N,
    args: ArgsOf<typeof remoteProgram, N>,
  ): Promise<RetOf<typeof remoteProgram, N>> {
    return this.call(remoteProgram, name, args);
  }

  /** Calls a procedure of libvirt's QEMU-specific program. */
  qemu<N extends ProcedureName<typeof qemuProgram>>(
    name: N,
    args: ArgsOf<typeof qemuProgram, N>,
  ): Promise<RetOf<typeof qemuProgram, N>> {
    return this.call(qemuProgram, name, args);
  }

  /** Decodes every message the daemon sends on its own and hands it to `listener`. */
  onMessage(listener: (message: DecodedMessage) => void): () => void {
    return this.connection.onMessage((incoming) => listener(decodeMessage(incoming)));
  }
}

function decodeReply(name: string, procedure: ProcedureInfo, reply: Buffer): unknown {
  if (!procedure.ret) {
    if (reply.length !== 0) throw new LibvirtProtocolError(`${name}: unexpected ${reply.length}-byte reply`);
    return undefined;
  }
  try {
    return decodeXdr(procedure.ret, reply);
  } catch (error) {
    throw new LibvirtProtocolError(`${name}: undecodable reply: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export function decodeMessage(incoming: IncomingMessage): DecodedMessage {
  const program = KNOWN_PROGRAMS.find(
    (p) => p.program === incoming.program && p.version === incoming.version,
  );
  const name = program?.namesByNumber.get(incoming.procedure);
  const programName = program?.name ?? `0x${incoming.program.toString(16)}`;
  const procedure = name === undefined ? undefined : program?.procedures[name];
  const label = name ?? `procedure ${incoming.procedure}`;
  if (!procedure || procedure.kind !== "message") {
    return {
      program: programName,
      procedure: label,
      error: new LibvirtProtocolError(`unexpected message ${label}`),
    };
  }
  try {
    const message = procedure.message ? decodeXdr(procedure.message, incoming.payload) : {};
    return { program: programName, procedure: label, message: message as object };
  } catch (error) {
    return { program: programName, procedure: label, error: error as Error };
  }
}
