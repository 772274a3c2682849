import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Quantity, QuantityParseError } from "./quantity.js";

// Expected values were produced by apimachinery v0.34.4's ParseQuantity → MarshalJSON / Value().
const GO_RESULTS: ReadonlyArray<[input: string, json: string, value: bigint, format: string]> = [
  ["0", "0", 0n, "DecimalSI"],
  ["1", "1", 1n, "DecimalSI"],
  ["100m", "100m", 1n, "DecimalSI"],
  ["1000m", "1", 1n, "DecimalSI"],
  ["1.5", "1500m", 2n, "DecimalSI"],
  ["0.5", "500m", 1n, "DecimalSI"],
  ["1.5Gi", "1536Mi", 1610612736n, "BinarySI"],
  ["1024Mi", "1Gi", 1073741824n, "BinarySI"],
  ["1Gi", "1Gi", 1073741824n, "BinarySI"],
  ["2048M", "2048M", 2048000000n, "DecimalSI"],
  ["1000M", "1G", 1000000000n, "DecimalSI"],
  ["1024M", "1024M", 1024000000n, "DecimalSI"],
  ["128Mi", "128Mi", 134217728n, "BinarySI"],
  ["0100M", "0100M", 100000000n, "DecimalSI"],
  ["+1G", "+1G", 1000000000n, "DecimalSI"],
  ["-1G", "-1G", -1000000000n, "DecimalSI"],
  ["-1.5", "-1500m", -2n, "DecimalSI"],
  ["1e3", "1e3", 1000n, "DecimalExponent"],
  ["1E3", "1E3", 1000n, "DecimalExponent"],
  ["1e-12", "1e-9", 1n, "DecimalExponent"],
  ["1.5e3", "1500", 1500n, "DecimalExponent"],
  ["0Mi", "0", 0n, "BinarySI"],
  ["1025Ki", "1025Ki", 1049600n, "BinarySI"],
  ["0.5Ki", "512", 512n, "BinarySI"],
  ["1.5Ki", "1536", 1536n, "BinarySI"],
  ["8Mi", "8Mi", 8388608n, "BinarySI"],
  ["2.5Gi", "2560Mi", 2684354560n, "BinarySI"],
  ["16Ei", "9223372036854775807", 9223372036854775807n, "BinarySI"],
  ["1000E", "1", 1000000000000000000000n, "DecimalSI"],
  ["1e+21", "1e+21", 1000000000000000000000n, "DecimalExponent"],
  [".", "0", 0n, "DecimalSI"],
  ["-", "0", 0n, "DecimalSI"],
  ["0.0000000001", "1n", 1n, "DecimalSI"],
  ["1234567890123456789", "1234567890123456789", 1234567890123456789n, "DecimalSI"],
];

describe("Quantity", () => {
  it.each(GO_RESULTS)("parses %s like apimachinery", (input, json, value, format) => {
    const quantity = Quantity.parse(input);
    expect(quantity.toString()).toBe(json);
    // Go's "1000E" and "1e+21" overflow int64 in Value(); our bigint keeps the true value.
    expect(quantity.value()).toBe(value);
    expect(quantity.format).toBe(format);
  });

  it.each([
    ["two dots", "1.2.3"],
    ["letters", "abc"],
    ["an unknown suffix", "1x"],
    ["nothing", ""],
    ["a made-up binary suffix", "1Qi"],
    ["an exponent without digits", "1e"],
    ["an absurd exponent", "1e999999999"],
    ["an absurd negative exponent", "1e-999999999"],
    ["two thousand digits", "9".repeat(2000)],
  ])("refuses %s with a parse error", (_case, input) => {
    expect(() => Quantity.parse(input)).toThrow(QuantityParseError);
    expect(Quantity.tryParse(input)).toBeUndefined();
  });

  it("reads JSON numbers as their decimal text", () => {
    expect(Quantity.parse(1024).toString()).toBe("1024");
    expect(Quantity.parse(0.1).toString()).toBe("100m");
  });

  it("writes integer quantities in their largest binary unit", () => {
    expect(Quantity.fromInteger(4n * 1024n ** 3n, "BinarySI").toString()).toBe("4Gi");
    expect(Quantity.fromInteger(1000n, "BinarySI").toString()).toBe("1k");
    expect(Quantity.fromInteger(3n * 512n * 1024n ** 2n, "BinarySI").toString()).toBe("1536Mi");
  });

  it("compares by value, not by spelling", () => {
    expect(Quantity.parse("1Gi").compare(Quantity.parse("1024Mi"))).toBe(0);
    expect(Quantity.parse("1G").compare(Quantity.parse("1Gi"))).toBe(-1);
    expect(Quantity.parse("2").compare(Quantity.parse("1500m"))).toBe(1);
  });

  it("round-trips: parsing the written form gives the same value and the same text", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "n"),
        (mantissa, suffix) => {
          const first = Quantity.parse(`${mantissa}${suffix}`);
          // From 10^21 on there is no suffix past "E" and the written form does not round-trip
          // (decimalSuffix keeps Go's behaviour), so the property holds below that.
          fc.pre(first.nanos < 10n ** 30n && first.nanos > -(10n ** 30n));
          const again = Quantity.parse(first.toString());
          expect(again.nanos).toBe(first.nanos);
          expect(again.toString()).toBe(first.toString());
        },
      ),
    );
  });
});
