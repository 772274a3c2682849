import fc from "fast-check";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { compareKeys, goScalarStyle, marshalGoYaml } from "./go-yaml.js";

// Each expected text is what sigs.k8s.io/yaml v1.6 (go.yaml.in/yaml/v2) prints for {v: <string>}.
describe("strings are written in the style go-yaml picks", () => {
  it.each([
    ["1e3", '"1e3"'],
    ["123e-11", '"123e-11"'],
    ["#cloud-config", "'#cloud-config'"],
    ["0o17", '"0o17"'],
    ["0b101", '"0b101"'],
    ["-0b1", '"-0b1"'],
    ["0x1F", '"0x1F"'],
    ["1_000", '"1_000"'],
    ["12:30", '"12:30"'],
    ["2001-12-14", '"2001-12-14"'],
    ["2001-12-14T21:59:43Z", '"2001-12-14T21:59:43Z"'],
    ["2001-12-14 21:59:43.10", '"2001-12-14 21:59:43.10"'],
    ["a\tb", '"a\\tb"'],
    ["x\r\ny", '"x\\r\\ny"'],
    ["multi\n\nblank", "|-\n  multi\n\n  blank"],
    ["a\n", "|\n  a"],
    ["a\n\n", "|+\n  a\n"],
    ["a\n b", "|-\n  a\n   b"],
    ["---x", "'---x'"],
    ["...", "'...'"],
    ["- a", "'- a'"],
    ["-a", "-a"],
    ["?", "'?'"],
    ["? a", "'? a'"],
    [":a", ":a"],
    ["a:", "'a:'"],
    ["a:b", "a:b"],
    ["x #y", "'x #y'"],
    ["x#y", "x#y"],
    ["\u00e9", "\u00e9"],
    ["\u00a0", "\u00a0"],
    ["a'b", "a'b"],
    ["'a", "'''a'"],
    ['a"b', 'a"b'],
    ["`x", "'`x'"],
    ["<<", "<<"],
    ["08", '"08"'],
    ["1.", '"1."'],
    ["+.5", '"+.5"'],
    ["~", '"~"'],
    ["Null", '"Null"'],
    ["null ", "'null '"],
    ["=", "="],
    ["0", '"0"'],
    ["-0", '"-0"'],
    ["+0", '"+0"'],
    ["00", '"00"'],
    ["0x", "0x"],
    ["9223372036854775808", '"9223372036854775808"'],
    ["18446744073709551616", '"18446744073709551616"'],
    ["-9223372036854775809", '"-9223372036854775809"'],
    ["2001-02-29", "2001-02-29"],
    ["2000-02-29", '"2000-02-29"'],
    ["1:2:3", '"1:2:3"'],
    ["y", '"y"'],
    ["n", '"n"'],
    ["ON", '"ON"'],
    ["a b", "a b"],
    ["a  b", "a  b"],
    ["\t", '"\\t"'],
    ["line1\nline2\n", "|\n  line1\n  line2"],
    ["  lead\nx", "|2-\n    lead\n  x"],
    ["x\n  y\n", "|\n  x\n    y"],
    ["2006-1-2T15:4:5Z", '"2006-1-2T15:4:5Z"'],
    ["a, b", "a, b"],
    ["[a]", "'[a]'"],
    ["{a}", "'{a}'"],
    ["a]", "a]"],
    ["a}", "a}"],
    ["a,", "a,"],
    ["%a", "'%a'"],
    ["@a", "'@a'"],
    ["!a", "'!a'"],
    ["&a", "'&a'"],
    ["*a", "'*a'"],
  ])("%j → %s", (value, written) => {
    expect(marshalGoYaml({ v: value })).toBe(`v: ${written}\n`);
  });
});

describe("marshalGoYaml", () => {
  it("writes a manifest as upstream's virtctl prints it: sorted keys, sequences under their key, {} kept", () => {
    const vm = {
      kind: "VirtualMachine",
      apiVersion: "kubevirt.io/v1",
      metadata: { name: "vm" },
      spec: {
        template: {
          spec: {
            domain: { devices: {}, resources: {} },
            volumes: [{ name: "a", containerDisk: { image: "i" } }],
          },
        },
      },
      status: {},
    };
    expect(marshalGoYaml(vm)).toBe(
      [
        "apiVersion: kubevirt.io/v1",
        "kind: VirtualMachine",
        "metadata:",
        "  name: vm",
        "spec:",
        "  template:",
        "    spec:",
        "      domain:",
        "        devices: {}",
        "        resources: {}",
        "      volumes:",
        "      - containerDisk:",
        "          image: i",
        "        name: a",
        "status: {}",
        "",
      ].join("\n"),
    );
  });

  it("never folds long lines", () => {
    const long = "ssh-ed25519 " + "A".repeat(200) + " me@host";
    expect(marshalGoYaml({ v: long })).toBe(`v: ${long}\n`);
  });

  it("orders keys as go-yaml does: other characters before letters, digit runs by their value", () => {
    const keys = ["b", "a10", "a2", "a_", "aB", "a", "A", "a01", "a1", "\u00e9", "Z9", "z"];
    expect([...keys].sort(compareKeys)).toEqual([
      "A",
      "Z9",
      "a",
      "a_",
      "a1",
      "a01",
      "a2",
      "a10",
      "aB",
      "b",
      "z",
      "\u00e9",
    ]);
  });

  it("reads back as the same value for any strings", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "grapheme-ascii" }), fc.string({ unit: "binary" })),
        (value) => {
          expect(parse(marshalGoYaml({ value }))).toEqual({ value });
        },
      ),
    );
  });

  it("quotes every string a YAML 1.1 reader would take for another type", () => {
    const ambiguous = fc.oneof(
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom(
        "yes",
        "No",
        "ON",
        "off",
        "y",
        "~",
        "null",
        "0x1f",
        "0o17",
        "1_000",
        "12:30",
        "2001-12-14",
      ),
    );
    fc.assert(
      fc.property(ambiguous, (text) => {
        expect(goScalarStyle(text, false)).toBe("QUOTE_DOUBLE");
        expect(parse(marshalGoYaml({ v: text }), { version: "1.1" })).toEqual({ v: text });
      }),
    );
  });
});
