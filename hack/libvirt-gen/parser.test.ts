import { describe, expect, it } from "vitest";
import { XdrSyntaxError } from "./lexer.js";
import { parseXdr } from "./parser.js";

describe("parseXdr", () => {
  it("reads constants in decimal, hex, octal and negative form, skipping % and # lines", () => {
    const source = `
%#include "internal.h"
#define IGNORED 1
/* comment */ const A = 10;
const B = 0x20008086;
const C = 017;
const D = -3;
const E = A;   // a constant defined by another (rpcgen allows it)
`;
    expect(parseXdr("t.x", source).map((d) => (d.kind === "const" ? [d.name, d.value] : d.kind))).toEqual([
      ["A", { kind: "literal", value: 10, text: "10" }],
      ["B", { kind: "literal", value: 0x20008086, text: "0x20008086" }],
      ["C", { kind: "literal", value: 15, text: "017" }],
      ["D", { kind: "literal", value: -3, text: "-3" }],
      ["E", { kind: "name", name: "A" }],
    ]);
  });

  it("reads every kind of declaration", () => {
    const [definition] = parseXdr(
      "t.x",
      `struct every {
        int a;
        unsigned int b;
        unsigned c;
        unsigned hyper d;
        hyper e;
        char f[32];
        unsigned char g;
        double h;
        bool i;
        opaque uuid[16];
        opaque blob<MAX>;
        opaque any<>;
        string name<64>;
        string text<>;
        other list<10>;
        other fixed[2];
        other *maybe;
        struct other plain;
      };`,
    );
    expect(definition?.kind === "struct" && definition.fields).toEqual([
      { kind: "scalar", name: "a", type: { kind: "int" } },
      { kind: "scalar", name: "b", type: { kind: "uint" } },
      { kind: "scalar", name: "c", type: { kind: "uint" } },
      { kind: "scalar", name: "d", type: { kind: "uhyper" } },
      { kind: "scalar", name: "e", type: { kind: "hyper" } },
      {
        kind: "fixedArray",
        name: "f",
        type: { kind: "int" },
        size: { kind: "literal", value: 32, text: "32" },
      },
      { kind: "scalar", name: "g", type: { kind: "uint" } },
      { kind: "scalar", name: "h", type: { kind: "double" } },
      { kind: "scalar", name: "i", type: { kind: "bool" } },
      { kind: "opaqueFixed", name: "uuid", size: { kind: "literal", value: 16, text: "16" } },
      { kind: "opaqueVar", name: "blob", max: { kind: "name", name: "MAX" } },
      { kind: "opaqueVar", name: "any", max: null },
      { kind: "string", name: "name", max: { kind: "literal", value: 64, text: "64" } },
      { kind: "string", name: "text", max: null },
      {
        kind: "varArray",
        name: "list",
        type: { kind: "named", name: "other" },
        max: { kind: "literal", value: 10, text: "10" },
      },
      {
        kind: "fixedArray",
        name: "fixed",
        type: { kind: "named", name: "other" },
        size: { kind: "literal", value: 2, text: "2" },
      },
      { kind: "optional", name: "maybe", type: { kind: "named", name: "other" } },
      { kind: "scalar", name: "plain", type: { kind: "named", name: "other" } },
    ]);
  });

  it("keeps the comment before each enum member (procedure annotations)", () => {
    const [definition] = parseXdr(
      "t.x",
      `enum demo_procedure {
        /** @generate: both
         * @priority: high */
        DEMO_PROC_PING = 1,
        DEMO_PROC_PONG = 2,
      };`,
    );
    expect(definition?.kind === "enum" && definition.members).toEqual([
      {
        name: "DEMO_PROC_PING",
        value: { kind: "literal", value: 1, text: "1" },
        comment: expect.stringContaining("@priority: high"),
      },
      { name: "DEMO_PROC_PONG", value: { kind: "literal", value: 2, text: "2" } },
    ]);
  });

  it("reads unions with shared cases, void arms and a default", () => {
    const [definition] = parseXdr(
      "t.x",
      `union result switch (int status) {
        case 0:
        case 1:
          int value;
        case 2:
          void;
        default:
          string message<>;
      };`,
    );
    expect(definition).toMatchObject({
      kind: "union",
      name: "result",
      discriminant: { name: "status", type: { kind: "int" } },
      arms: [
        { cases: [{ value: 0 }, { value: 1 }], declaration: { kind: "scalar", name: "value" } },
        { cases: [{ value: 2 }], declaration: { kind: "void" } },
      ],
      defaultArm: { kind: "string", name: "message", max: null },
    });
  });

  it("records file and line of each definition", () => {
    const definitions = parseXdr("demo.x", "const A = 1;\n\ntypedef int counter;\n");
    expect(definitions.map((d) => [d.name, d.file, d.line])).toEqual([
      ["A", "demo.x", 1],
      ["counter", "demo.x", 3],
    ]);
  });

  it.each([
    ["a missing semicolon", "struct s { int a }", /t\.x:1: expected ";", found "}"/],
    ["an unterminated comment", "/* no end", /t\.x:1: unterminated comment/],
    ["an rpcgen program block", "program P { } = 1;", /program blocks are not supported/],
    ["an inline struct", "struct s { struct { int a; } x; };", /inline struct definitions are not supported/],
    ["quadruple", "struct s { quadruple q; };", /quadruple .* is not supported/],
    ["a void struct member", "struct s { void; };", /a struct member cannot be void/],
    ["an empty enum", "enum e { };", /an enum needs at least one member/],
    ["a stray character", "const A = 1;\n@", /t\.x:2: unexpected character "@"/],
    ["a union on an array", "union u switch (int a[2]) { case 0: void; };", /must be a plain int/],
  ])("reports %s with file and line", (_name, source, message) => {
    expect(() => parseXdr("t.x", source)).toThrow(XdrSyntaxError);
    expect(() => parseXdr("t.x", source)).toThrow(message);
  });
});
