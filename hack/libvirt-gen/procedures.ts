// The procedure tables of libvirt's RPC programs, derived the way libvirt's own gendispatch does:
// an enum `<prefix>_procedure` numbers the procedures, `<PREFIX>_PROGRAM` and
// `<PREFIX>_PROTOCOL_VERSION` identify the program, and `<prefix>_<name>_args|_ret|_msg` structs
// carry the payloads of `<PREFIX>_PROC_<NAME>`. Annotations in the comment before each member
// say whether a call streams data (@readstream/@writestream) and its priority; our own
// definitions mark payload-less messages (keepalive) with @message.
import type { EnumMember } from "./ast.js";
import type { SpecModule, SymbolTable } from "./symbols.js";

export interface ProcedureSpec {
  /** Enum member name, e.g. REMOTE_PROC_DOMAIN_GET_INFO. */
  name: string;
  number: number;
  /** "message": sent unprompted as VIR_NET_MESSAGE (events, keepalive); "call": CALL answered by REPLY. */
  kind: "call" | "message";
  args: string | null;
  ret: string | null;
  /** The payload struct of a message. */
  message: string | null;
  /** "read": the daemon streams data to the client after the reply; "write": the client streams to it. */
  stream: "read" | "write" | null;
  priority: "high" | "low";
}

export interface ProgramSpec {
  /** Lower-case prefix of the program's names, e.g. "remote". */
  prefix: string;
  module: SpecModule;
  programConstant: string;
  versionConstant: string;
  procedures: ProcedureSpec[];
}

const PAYLOAD_SUFFIXES = ["args", "ret", "msg"] as const;

function annotation(comment: string | undefined, key: string): string | undefined {
  if (comment === undefined) return undefined;
  return new RegExp(`@${key}:\\s*([A-Za-z0-9_]+)`).exec(comment)?.[1];
}

function procedureOf(program: string, member: EnumMember, symbols: SymbolTable): ProcedureSpec {
  const upper = program.toUpperCase();
  const marker = `${upper}_PROC_`;
  if (!member.name.startsWith(marker)) throw new Error(`${member.name} should start with ${marker}`);
  const base = `${program}_${member.name.slice(marker.length).toLowerCase()}`;
  const struct = (suffix: string): string | null => {
    const name = `${base}_${suffix}`;
    return symbols.types.get(name)?.definition.kind === "struct" ? name : null;
  };
  const [args, ret, message] = PAYLOAD_SUFFIXES.map(struct) as [string | null, string | null, string | null];
  const isMessage = message !== null || /@message\b/.test(member.comment ?? "");
  if (isMessage && (args !== null || ret !== null)) {
    throw new Error(`${member.name} has both a message payload and call arguments or results`);
  }
  const stream = annotation(member.comment, "readstream")
    ? "read"
    : annotation(member.comment, "writestream")
      ? "write"
      : null;
  return {
    name: member.name,
    number: symbols.constants.get(member.name)?.value ?? Number.NaN,
    kind: isMessage ? "message" : "call",
    args,
    ret,
    message,
    stream,
    priority: annotation(member.comment, "priority") === "high" ? "high" : "low",
  };
}

/** Every program defined by the specification files, in module order. */
export function findPrograms(symbols: SymbolTable): ProgramSpec[] {
  const programs: ProgramSpec[] = [];
  for (const [name, symbol] of symbols.types) {
    const definition = symbol.definition;
    if (definition.kind !== "enum" || !name.endsWith("_procedure")) continue;
    const prefix = name.slice(0, -"_procedure".length);
    const programConstant = `${prefix.toUpperCase()}_PROGRAM`;
    const versionConstant = `${prefix.toUpperCase()}_PROTOCOL_VERSION`;
    for (const constant of [programConstant, versionConstant]) {
      if (!symbols.constants.has(constant)) throw new Error(`program ${prefix} has no ${constant}`);
    }
    const procedures = definition.members.map((member) => procedureOf(prefix, member, symbols));
    programs.push({ prefix, module: symbol.module, programConstant, versionConstant, procedures });
  }
  return programs;
}

/** Payload structs (`*_args`, `*_ret`, `*_msg`) of a program that no procedure claims: a naming slip. */
export function unclaimedPayloads(symbols: SymbolTable, programs: readonly ProgramSpec[]): string[] {
  const claimed = new Set(programs.flatMap((p) => p.procedures.flatMap((c) => [c.args, c.ret, c.message])));
  const prefixes = programs.map((p) => `${p.prefix}_`);
  return [...symbols.types.keys()].filter(
    (name) =>
      prefixes.some((prefix) => name.startsWith(prefix)) &&
      PAYLOAD_SUFFIXES.some((suffix) => name.endsWith(`_${suffix}`)) &&
      !claimed.has(name),
  );
}
