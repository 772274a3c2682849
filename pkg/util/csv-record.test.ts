import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CSVParseError, readCSVRecord } from "./csv-record.js";

// Expected values are what Go's encoding/csv Reader.Read returns for the same text.
describe("readCSVRecord reads the first record as encoding/csv does", () => {
  it.each<[string, string[]]>([
    ["a", ["a"]],
    ["a,b", ["a", "b"]],
    ['"a,b",c', ["a,b", "c"]],
    ['"a""b"', ['a"b']],
    ["\n\na,b", ["a", "b"]],
    ["a\nb", ["a"]],
    ["a\r\nb", ["a"]],
    ['"a\nb",c', ["a\nb", "c"]],
    ["a,", ["a", ""]],
    [",", ["", ""]],
    ['""', [""]],
    ["a\r", ["a"]],
    ["\rb", ["\rb"]],
    ['"a\r\nb"', ["a\nb"]],
  ])("%j → %j", (text, fields) => {
    expect(readCSVRecord(text)).toEqual(fields);
  });

  it.each([
    ['a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    [' "a"', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['"ab', 'parse error on line 1, column 4: extraneous or missing " in quoted-field'],
    ['"a"b"', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'],
    ['"a" ', 'parse error on line 1, column 3: extraneous or missing " in quoted-field'],
    ['é,"ü', 'parse error on line 1, column 7: extraneous or missing " in quoted-field'],
    ['"a\nb', 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field'],
    [
      'a,"b\nc"d',
      'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field',
    ],
    ["", "EOF"],
    ["\n", "EOF"],
    ["\r", "EOF"],
  ])("refuses %j: %s", (text, message) => {
    expect(() => readCSVRecord(text)).toThrow(new CSVParseError(message));
  });

  it("reads back any fields written as Go's csv.Writer quotes them", () => {
    const field = fc.string({ unit: fc.constantFrom(...'ab ,"\né') });
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 5 }), (fields) => {
        // A lone empty field writes as an empty line, which Go too reads as no record.
        fc.pre(!(fields.length === 1 && fields[0] === ""));
        const quoted = fields.map((f) => (/[",\n\r]|^ /.test(f) ? `"${f.replaceAll('"', '""')}"` : f));
        expect(readCSVRecord(`${quoted.join(",")}\n`)).toEqual(fields);
      }),
    );
  });

  it("fails only with CSVParseError on any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'a,"\n\r é') }), (text) => {
        try {
          expect(Array.isArray(readCSVRecord(text))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(CSVParseError);
        }
      }),
    );
  });
});
