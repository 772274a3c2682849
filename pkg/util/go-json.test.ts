// The expected texts are Go's (encoding/json of Go 1.24+, checked against it), so that messages built
// from them read as upstream's.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goJsonDecodeFirst, goJsonSyntaxError, goUnmarshal, quoteChar } from "./go-json.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("json.Unmarshal's syntax errors, as Go words them", () => {
  it.each([
    ["this is invalid JSON {{{{", "invalid character 'h' in literal true (expecting 'r')"],
    ["", "unexpected end of JSON input"],
    [" ", "unexpected end of JSON input"],
    ['{"a":1,', "unexpected end of JSON input"],
    ['"abc', "unexpected end of JSON input"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["fals", "invalid character ' ' in literal false (expecting 'e')"],
    ["-", "invalid character ' ' in numeric literal"],
    ["1.", "invalid character ' ' after decimal point in numeric literal"],
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["{}x", "invalid character 'x' after top-level value"],
    ["{} {}", "invalid character '{' after top-level value"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["{1:2}", "invalid character '1' looking for beginning of object key string"],
    ["[,]", "invalid character ',' looking for beginning of value"],
    // A byte outside a string is quoted as the Latin-1 rune of that byte, not as the UTF-8 character.
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ["\u007f", "invalid character '\\x7f' looking for beginning of value"],
    ["\u0001", "invalid character '\\x01' looking for beginning of value"],
    ["\t\u000b", "invalid character '\\v' looking for beginning of value"],
  ])("%j", (input, message) => {
    expect(goJsonSyntaxError(bytes(input))).toBe(message);
  });

  it.each(['{"a":[1,2.5,-3e2,null,false,true,"\\u00e9\\n"]}', "[]", "0", ' "s" ', "-0.5E-7"])(
    "accepts %j",
    (input) => {
      expect(goJsonSyntaxError(bytes(input))).toBeUndefined();
    },
  );

  it("refuses nesting deeper than Go's limit of 10000", () => {
    expect(goJsonSyntaxError(bytes("[".repeat(10000) + "]".repeat(10000)))).toBeUndefined();
    expect(goJsonSyntaxError(bytes("[".repeat(10001)))).toBe("invalid character '[' exceeded max depth");
  });

  it("quotes every byte as strconv.Quote quotes its rune", () => {
    expect([0x27, 0x22, 0x5c, 0x07, 0x00, 0x80, 0xa0, 0xad, 0xa9, 0xff].map(quoteChar)).toEqual([
      "'\\''",
      "'\"'",
      "'\\\\'",
      "'\\a'",
      "'\\x00'",
      "'\\u0080'",
      "'\\u00a0'",
      "'\\u00ad'",
      "'©'",
      "'ÿ'",
    ]);
  });

  it("never throws, and fails exactly when JSON.parse does (JSON.parse is stricter on nothing Go takes)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((json) => json.slice(0, -1)),
        ),
        (text) => {
          let parses = true;
          try {
            JSON.parse(text);
          } catch {
            parses = false;
          }
          expect(goJsonSyntaxError(bytes(text)) === undefined).toBe(parses);
        },
      ),
    );
  });
});

describe("goUnmarshal", () => {
  it("decodes what scans", () => {
    expect(goUnmarshal(bytes('{"a":[1,"x"]}'))).toEqual({ ok: true, value: { a: [1, "x"] } });
  });

  it("refuses the first number that overflows float64, as Go's decoder does", () => {
    expect(goUnmarshal(bytes('{"s":"1e999","a":1e400,"b":-2e500}'))).toEqual({
      ok: false,
      message: "json: cannot unmarshal number 1e400 into Go value of type float64",
    });
  });
});

describe("the first value a json.Decoder reads", () => {
  it.each([
    ['{"a":1} trailing', { ok: true, end: 7 }],
    [' {"a":1}{"b":2}', { ok: true, end: 8 }],
    ["12 ", { ok: true, end: 2 }],
    ["12", { ok: true, end: 2 }],
    ["", { ok: false, message: "EOF" }],
    ["  \n", { ok: false, message: "EOF" }],
    ['  {"a":1', { ok: false, message: "unexpected EOF" }],
    ['{"a" 1}', { ok: false, message: "invalid character '1' after object key", offset: 6 }],
  ])("%j", (input, expected) => {
    expect(goJsonDecodeFirst(bytes(input))).toEqual(expected);
  });
});
