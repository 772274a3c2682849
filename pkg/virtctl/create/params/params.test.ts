import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  NotFoundError,
  flagError,
  mapParams,
  paramByName,
  parseUint32,
  splitPrefixedName,
  supported,
} from "./params.js";

// Cases and messages from upstream's params_test.go.
const PARSE_FLAG_ERROR = 'failed to parse "--testFlag" flag: ';
const table = { param1: "string", param2: "uint", param3: "quantity", param4: "strings" } as const;

describe("flag errors", () => {
  it("name the flag", () => {
    expect(flagError("testFlag", "My wrapped test error: testvalue").message).toBe(
      `${PARSE_FLAG_ERROR}My wrapped test error: testvalue`,
    );
    expect(new NotFoundError("testParam").message).toBe("testParam must be specified");
  });
});

describe("supported", () => {
  it("lists the parameters with their Go types, in order", () => {
    expect(supported(table)).toBe("param1:string,param2:uint,param3:resource.Quantity,param4:[]string");
  });
});

describe("mapParams", () => {
  it.each([
    ["", "params may not be empty"],
    ["nocolon", "params need to have at least one colon: nocolon"],
    ["param1:a,nocolon", "params need to have at least one colon: nocolon"],
  ])("refuses %j", (text, message) => {
    expect(() => mapParams("testFlag", text, table)).toThrow(PARSE_FLAG_ERROR + message);
  });

  it("reads every supported type", () => {
    expect(mapParams("testFlag", "param1:abc,param2:7,param3:1.5Gi,param4:a;b;c", table)).toEqual({
      param1: "abc",
      param2: 7,
      param3: expect.objectContaining({ format: "BinarySI" }),
      param4: ["a", "b", "c"],
    });
    expect(String(mapParams("testFlag", "param3:1.5Gi", table).param3)).toBe("1536Mi");
  });

  it("leaves parameters not given as Go's zero values; a colon may be part of the value", () => {
    expect(mapParams("testFlag", "param1:my.registry/image:tag", table)).toEqual({
      param1: "my.registry/image:tag",
      param2: undefined,
      param3: undefined,
      param4: undefined,
    });
  });

  it.each([
    ["param2:-1", 'failed to parse param "param2": strconv.ParseUint: parsing "-1": invalid syntax'],
    [
      "param2:9999999999999",
      'failed to parse param "param2": strconv.ParseUint: parsing "9999999999999": value out of range',
    ],
    ["param2:10Gu", 'failed to parse param "param2": strconv.ParseUint: parsing "10Gu": invalid syntax'],
    ["param2:", 'failed to parse param "param2": strconv.ParseUint: parsing "": invalid syntax'],
    ["param2:8,param3:1Gu", 'failed to parse param "param3": unable to parse quantity\'s suffix'],
    [
      "param3: 1Gi",
      "failed to parse param \"param3\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
  ])("refuses bad values: %j", (text, message) => {
    expect(() => mapParams("testFlag", text, table)).toThrow(PARSE_FLAG_ERROR + message);
  });

  it("checks values in the table's order, before unknown parameters", () => {
    expect(() => mapParams("testFlag", "param3:x,param2:x,other:1", table)).toThrow(
      `${PARSE_FLAG_ERROR}failed to parse param "param2"`,
    );
  });

  it.each([
    ["param1:test,unknown:test", "unknown param(s): unknown:test"],
    ["param1:test,unknown1:test,unknown2:x", "unknown param(s): unknown1:test,unknown2:x"],
  ])("refuses unknown parameters: %j", (text, message) => {
    expect(() => mapParams("testFlag", text, table)).toThrow(PARSE_FLAG_ERROR + message);
  });

  it("fails only with the flag's own error, and reads back what it was given", () => {
    const word = fc.string({ unit: fc.constantFrom(..."ab:;,0-9G ") });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("param1", "param2", "param3", "param4", "x"), word)),
        (pairs) => {
          const text = pairs.map(([key, value]) => `${key}:${value}`).join(",");
          try {
            const parsed = mapParams("testFlag", text, table);
            const last = new Map(pairs.map(([key, value]) => [key, value.split(",")[0] ?? ""]));
            if (!text.includes(",") || pairs.every(([, value]) => !value.includes(","))) {
              expect(parsed.param1).toBe(last.get("param1") ?? "");
              expect(parsed.param4).toEqual(last.get("param4")?.split(";"));
            }
          } catch (error) {
            expect((error as Error).message.startsWith(PARSE_FLAG_ERROR)).toBe(true);
          }
        },
      ),
    );
  });
});

describe("parseUint32 is strconv.ParseUint(text, 10, 32)", () => {
  it("agrees with exact arithmetic on any digits and on any text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[0-9]{1,12}$/), fc.string({ maxLength: 6 })), (text) => {
        const parsed = parseUint32(text);
        if (/^[0-9]+$/.test(text) && BigInt(text) <= 0xffffffffn) expect(parsed).toBe(Number(text));
        else if (/^[0-9]+$/.test(text)) expect(parsed).toMatch(/value out of range$/);
        else expect(parsed).toMatch(/invalid syntax$/);
      }),
    );
  });

  it("reports an overflow before a bad character, as Go reads digit by digit", () => {
    expect(parseUint32("99999999999x")).toBe('strconv.ParseUint: parsing "99999999999x": value out of range');
  });
});

describe("splitPrefixedName", () => {
  it.each([
    ["testname", "", "testname"],
    ["testns/testname", "testns", "testname"],
  ])("%s", (text, prefix, name) => {
    expect(splitPrefixedName(text)).toEqual({ prefix, name });
  });

  it.each([
    ["testns/testname/test", "invalid count 2 of slashes in prefix/name"],
    ["testns/testname/test/test2", "invalid count 3 of slashes in prefix/name"],
    ["", "name cannot be empty"],
    ["testns/", "name cannot be empty"],
  ])("refuses %j", (text, message) => {
    expect(() => splitPrefixedName(text)).toThrow(message);
  });
});

describe("paramByName", () => {
  it.each([
    ["", "params may not be empty"],
    ["nocolon", "params need to have at least one colon: nocolon"],
  ])("refuses %j", (text, message) => {
    expect(() => paramByName("testParam", text)).toThrow(message);
  });

  it.each(["testParam:", "anotherParam:test,testParam:"])("finds the value in %j", (base) => {
    expect(paramByName("testParam", `${base}value`)).toBe("value");
  });

  it.each(["anotherParam:test:", "anotherParam:test,someParam:test"])(
    "reports a missing parameter in %j",
    (text) => {
      expect(() => paramByName("testParam", text)).toThrow(new NotFoundError("testParam"));
    },
  );
});
