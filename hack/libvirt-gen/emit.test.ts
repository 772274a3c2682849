import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { emitModule } from "./emit-module.js";
import { parseXdr } from "./parser.js";
import { findPrograms, unclaimedPayloads } from "./procedures.js";
import { SymbolTable } from "./symbols.js";
import type { SpecModule } from "./symbols.js";

const libvirtDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "pkg", "libvirt");

const BASE = `
const NAME_MAX = 8;
typedef string name_t<NAME_MAX>;
enum colour { RED = 0, GREEN = 1 };
`;

const DEMO = `
const DEMO_PROGRAM = 0x44454d4f;
const DEMO_PROTOCOL_VERSION = 1;

/* uses a type defined further down: the codec must be lazy */
struct demo_pair { demo_item first; demo_item *second; };
struct demo_item { base_name_ref name; int weight; };
typedef name_t base_name_ref;

struct node { int value; node *next; };

union demo_value switch (colour kind) {
  case RED: unsigned hyper big;
  case GREEN: void;
};

struct demo_ping_args { demo_pair pair; demo_value value; opaque tag[3]; };
struct demo_ping_ret { node list; };
struct demo_tick_msg { int callbackID; };

enum demo_procedure {
  /** @priority: high */
  DEMO_PROC_PING = 1,
  /** @readstream: 1 */
  DEMO_PROC_DOWNLOAD = 2,
  DEMO_PROC_TICK = 3
};
`;

function modules(base: string, demo: string): SpecModule[] {
  return [
    { source: "base.x", module: "base", alias: "base", definitions: parseXdr("base.x", base) },
    { source: "demo.x", module: "demo", alias: "demo", definitions: parseXdr("demo.x", demo) },
  ];
}

const scratch = mkdtempSync(join(tmpdir(), "kvts-libvirt-gen-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes the emitted modules next to each other, pointing their runtime imports at pkg/libvirt. */
async function load(specs: SpecModule[]): Promise<Record<string, Record<string, unknown>>> {
  const symbols = new SymbolTable(specs);
  const programs = findPrograms(symbols);
  const loaded: Record<string, Record<string, unknown>> = {};
  for (const spec of specs) {
    const source = emitModule(spec, symbols, programs)
      .replace('"../xdr.js"', JSON.stringify(join(libvirtDir, "xdr.ts")))
      .replace('"../procedure.js"', JSON.stringify(join(libvirtDir, "procedure.ts")));
    writeFileSync(join(scratch, `${spec.module}.ts`), source);
  }
  for (const spec of specs)
    loaded[spec.module] = (await import(join(scratch, `${spec.module}.ts`))) as Record<string, unknown>;
  return loaded;
}

interface Codec {
  encode(writer: unknown, value: unknown): void;
  decode(reader: unknown): unknown;
}

describe("emitted modules", () => {
  const specs = modules(BASE, DEMO);
  const symbols = new SymbolTable(specs);
  const demoSource = emitModule(specs[1] as SpecModule, symbols, findPrograms(symbols));

  it("refer to later and recursive types lazily and import other modules under their alias", () => {
    expect(demoSource).toContain('first: xdr.lazy("demo_item", () => DemoItemCodec)');
    expect(demoSource).toContain('next: xdr.optional(xdr.lazy("node", () => NodeCodec))');
    expect(demoSource).toContain('import * as base from "./base.js";');
    expect(demoSource).toContain("| { kind: typeof base.RED; big: bigint; }");
  });

  it("encode and decode what they declare, across modules", async () => {
    const { demo } = await load(specs);
    const { encodeXdr, decodeXdr } = await import("../../pkg/libvirt/xdr.js");
    const argsCodec = demo?.DemoPingArgsCodec as Parameters<typeof encodeXdr>[0];
    const args = {
      pair: { first: { name: "a", weight: 1 }, second: null },
      value: { kind: 0, big: 1n << 40n },
      tag: Buffer.from([1, 2, 3]),
    };
    const bytes = encodeXdr(argsCodec, args);
    expect(bytes.toString("hex")).toBe(
      "00000001" + "61000000" + "00000001" + "00000000" + "00000000" + "00000100" + "00000000" + "01020300",
    );
    expect(decodeXdr(argsCodec, bytes)).toEqual(args);
    const retCodec = demo?.DemoPingRetCodec as Codec as Parameters<typeof encodeXdr>[0];
    const list = { list: { value: 1, next: { value: 2, next: null } } };
    expect(decodeXdr(retCodec, encodeXdr(retCodec, list))).toEqual(list);
    expect(() =>
      encodeXdr(argsCodec, { ...args, pair: { first: { name: "too long name", weight: 1 }, second: null } }),
    ).toThrow(/pair\.first\.name: string<8> is 13 bytes long/);
  });

  it("carry the procedure table: numbers, payloads, streaming, priority, messages", async () => {
    const { demo } = await load(specs);
    const table = demo?.demoProcedures as Record<string, Record<string, unknown>>;
    expect(table.DEMO_PROC_PING).toMatchObject({ number: 1, kind: "call", stream: null, priority: "high" });
    expect(table.DEMO_PROC_PING?.args).toBe(demo?.DemoPingArgsCodec);
    expect(table.DEMO_PROC_PING?.ret).toBe(demo?.DemoPingRetCodec);
    expect(table.DEMO_PROC_DOWNLOAD).toMatchObject({
      number: 2,
      kind: "call",
      args: null,
      ret: null,
      stream: "read",
    });
    expect(table.DEMO_PROC_TICK).toMatchObject({
      number: 3,
      kind: "message",
      message: demo?.DemoTickMsgCodec,
    });
    const program = demo?.demoProgram as {
      program: number;
      version: number;
      namesByNumber: Map<number, string>;
    };
    expect(program.program).toBe(0x44454d4f);
    expect(program.namesByNumber.get(3)).toBe("DEMO_PROC_TICK");
  });
});

describe("symbol checks", () => {
  it.each([
    ["a name defined twice", "const A = 1; typedef int A;", /"A" is defined twice/],
    ["an unknown type", "struct s { missing m; };", /unknown type "missing"/],
    ["an unknown constant", "typedef opaque o[SIZE];", /unknown constant "SIZE"/],
    ["an enum value beyond int", "enum e { BIG = 0x80000000 };", /does not fit an XDR enum/],
    ["a repeated union case", "union u switch (int k) { case 1: void; case 1: int x; };", /repeats case 1/],
    [
      "a union on a string",
      "typedef string s<>; union u switch (s k) { case 1: void; };",
      /must switch on an int/,
    ],
  ])("reject %s", (_name, source, message) => {
    expect(() => new SymbolTable(modules(BASE, source))).toThrow(message);
  });

  it("find payload structs no procedure claims", () => {
    const specs = modules(BASE, DEMO.replace("struct demo_tick_msg", "struct demo_tock_msg"));
    const symbols = new SymbolTable(specs);
    expect(unclaimedPayloads(symbols, findPrograms(symbols))).toEqual(["demo_tock_msg"]);
  });

  it("require the program number and version constants", () => {
    const symbols = new SymbolTable(modules(BASE, DEMO.replace("const DEMO_PROTOCOL_VERSION = 1;", "")));
    expect(() => findPrograms(symbols)).toThrow(/program demo has no DEMO_PROTOCOL_VERSION/);
  });
});
