// Expected values and messages are what upstream's virtctl decodes from the same input (apimachinery's
// YAMLOrJSONDecoder into a v1.VirtualMachine), where this port words them the same.
import { describe, expect, it } from "vitest";
import { VirtualMachineSchema } from "../api/generated/v1.js";
import { decodeYAMLOrJSON, goFormatFloat32 } from "./yaml-or-json.js";

const decode = (text: string) =>
  decodeYAMLOrJSON(Buffer.from(text), VirtualMachineSchema, "v1.VirtualMachine");

describe("the first object of a YAML or JSON stream", () => {
  it.each([
    ["YAML", "metadata:\n  name: a\n", { metadata: { name: "a" } }],
    ["a leading separator", "---\nmetadata:\n  name: a\n", { metadata: { name: "a" } }],
    ["a separator with a comment", "--- # c\nmetadata:\n  name: a\n", { metadata: { name: "a" } }],
    [
      "the first of two documents",
      "metadata:\n  name: a\n---\nmetadata:\n  name: b\n",
      { metadata: { name: "a" } },
    ],
    ["the first of two JSON objects", '{"metadata": {"name": "x"}}\n{"b":1}', { metadata: { name: "x" } }],
    ["JSON that only YAML reads", '{"metadata": {"name": "x"},}', { metadata: { name: "x" } }],
    ["a YAML flow mapping", "{metadata: {name: x}}", { metadata: { name: "x" } }],
    ["an empty document", "\n\n", null],
    ["a null document", "~", null],
    // YAML 1.1, as go-yaml v2: `y` is true, and a string field takes its text.
    ["YAML 1.1 booleans", "metadata:\n  name: y\n", { metadata: { name: "true" } }],
    [
      "duplicate keys, the last one winning",
      "metadata:\n  name: x\n  name: z\n",
      { metadata: { name: "z" } },
    ],
  ])("%s", (_case, text, value) => {
    expect(decode(text)).toEqual({ ok: true, value });
  });

  it("turns numbers and booleans into text where the Go field is a string, as sigs.k8s.io/yaml does", () => {
    const yaml = decode(
      "metadata:\n  name: 123\n  labels:\n    a: 1.5\n    b: yes\n    c: 1000000.0\n    d: 0x1F\n    g: 0.1\n    h: 3.14159265358979\n    j: 0777\n    k: 2001-12-14\nspec:\n  running: true\n  template:\n    spec:\n      terminationGracePeriodSeconds: 30\n",
    );
    expect(yaml).toEqual({
      ok: true,
      value: {
        metadata: {
          name: "123",
          labels: {
            a: "1.5",
            b: "true",
            c: "1e+06",
            d: "31",
            g: "0.1",
            h: "3.1415927",
            j: "511",
            k: "2001-12-14",
          },
        },
        spec: { running: true, template: { spec: { terminationGracePeriodSeconds: 30 } } },
      },
    });
    expect(decode('{"metadata":{"name":123,"labels":{"a":1.5,"b":true,"d":7}}}')).toEqual({
      ok: true,
      value: { metadata: { name: "123", labels: { a: "1.5", b: "true", d: "7" } } },
    });
  });

  it.each([
    ["nothing", "", "EOF"],
    [
      "the upstream test's invalid YAML",
      "apiVersion: kubevirt.io/v1kind: VirtualMachine",
      "error converting YAML to JSON: yaml: mapping values are not allowed in this context",
    ],
    [
      "a tab as indentation",
      "\tfoo: bar",
      "error converting YAML to JSON: yaml: found character that cannot start any token",
    ],
    [
      "an unknown anchor",
      "a: *nope",
      "error converting YAML to JSON: yaml: unknown anchor 'nope' referenced",
    ],
    ["a bad separator", "---x\nmetadata:\n  name: a\n", "invalid Yaml document separator: x"],
    [
      "a list",
      "- 1\n- 2",
      "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type v1.VirtualMachine",
    ],
    [
      "a string",
      "just a string",
      "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type v1.VirtualMachine",
    ],
    [
      "a number",
      "5",
      "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go value of type v1.VirtualMachine",
    ],
    // JSON's error is the one reported when YAML cannot read the text either.
    ["broken JSON", '{"a" 1}', "json: offset 6: invalid character '1' after object key"],
    ["cut JSON", '  {"metadata":{"name":"x"}', "unexpected EOF"],
  ])("refuses %s", (_case, text, message) => {
    expect(decode(text)).toEqual({ ok: false, message });
  });

  it("formats floats as strconv.FormatFloat(f, 'g', -1, 32)", () => {
    expect([1.5, 1e6, 0.1, 3.14159265358979, 1.25e-5, 123456.7, 0].map(goFormatFloat32)).toEqual([
      "1.5",
      "1e+06",
      "0.1",
      "3.1415927",
      "1.25e-05",
      "123456.7",
      "0",
    ]);
  });
});
