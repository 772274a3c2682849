import { describe, expect, it } from "vitest";
import type { FlagSpec } from "./flags.js";
import { findCommandName, flagUsages, parseFlags } from "./flags.js";

const specs: FlagSpec[] = [
  { name: "force", kind: "bool", defaultValue: false, usage: "force it" },
  { name: "grace-period", kind: "int", defaultValue: -1, usage: "seconds" },
  { name: "namespace", short: "n", kind: "string", defaultValue: "", usage: "the namespace" },
];

describe("parseFlags follows pflag's conventions", () => {
  it.each([
    { argv: ["vm"], force: false, grace: -1, namespace: "", positionals: ["vm"] },
    { argv: ["--force", "vm"], force: true, grace: -1, namespace: "", positionals: ["vm"] },
    { argv: ["vm", "--force=false"], force: false, grace: -1, namespace: "", positionals: ["vm"] },
    { argv: ["--force", "false"], force: true, grace: -1, namespace: "", positionals: ["false"] },
    { argv: ["--grace-period", "0", "vm"], force: false, grace: 0, namespace: "", positionals: ["vm"] },
    { argv: ["--grace-period=30"], force: false, grace: 30, namespace: "", positionals: [] },
    { argv: ["-n", "ns", "vm"], force: false, grace: -1, namespace: "ns", positionals: ["vm"] },
    { argv: ["-nns"], force: false, grace: -1, namespace: "ns", positionals: [] },
    { argv: ["-n=ns"], force: false, grace: -1, namespace: "ns", positionals: [] },
    { argv: ["--namespace=a=b"], force: false, grace: -1, namespace: "a=b", positionals: [] },
    { argv: ["--", "--force", "-n"], force: false, grace: -1, namespace: "", positionals: ["--force", "-n"] },
  ])("$argv", ({ argv, force, grace, namespace, positionals }) => {
    const parsed = parseFlags(argv, specs);
    expect(parsed.bool("force")).toBe(force);
    expect(parsed.int("grace-period")).toBe(grace);
    expect(parsed.string("namespace")).toBe(namespace);
    expect(parsed.positionals).toEqual(positionals);
  });

  it("collects every occurrence of a string array, as given, and keeps it apart from its default", () => {
    const array: FlagSpec[] = [
      { name: "opt", short: "t", kind: "stringArray", defaultValue: ["from-default"], usage: "" },
    ];
    expect(parseFlags([], array).strings("opt")).toEqual(["from-default"]);
    const parsed = parseFlags(["-t", "-o A=b,c", "--opt=-v", "vm", "-t-q"], array);
    expect(parsed.strings("opt")).toEqual(["-o A=b,c", "-v", "-q"]);
    expect(parsed.positionals).toEqual(["vm"]);
    expect(flagUsages([{ ...array[0]!, defaultValue: [], usage: "options" }])).toBe(
      "  -t, --opt stringArray   options",
    );
  });

  it("records which flags were given, even with their default value", () => {
    expect([...parseFlags(["--grace-period=-1"], specs).changed]).toEqual(["grace-period"]);
    expect([...parseFlags(["vm"], specs).changed]).toEqual([]);
  });

  it.each([
    { argv: ["--bogus"], message: "unknown flag: --bogus" },
    { argv: ["-x"], message: "unknown shorthand flag: 'x' in -x" },
    { argv: ["--grace-period"], message: "flag needs an argument: --grace-period" },
    { argv: ["-n"], message: "flag needs an argument: 'n' in -n" },
    {
      argv: ["--grace-period=soon"],
      message:
        'invalid argument "soon" for "--grace-period" flag: strconv.ParseInt: parsing "soon": invalid syntax',
    },
    {
      argv: ["--force=maybe"],
      message:
        'invalid argument "maybe" for "--force" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    },
  ])("refuses $argv", ({ argv, message }) => {
    expect(() => parseFlags(argv, specs)).toThrow(message);
  });
});

describe("findCommandName", () => {
  it.each([
    { argv: ["start", "vm"], at: 0 },
    { argv: ["-n", "ns", "start", "vm"], at: 2 },
    { argv: ["--namespace=ns", "stop"], at: 1 },
    { argv: ["--force", "stop"], at: 1 },
    { argv: ["-n", "ns"], at: -1 },
    { argv: [], at: -1 },
  ])("$argv", ({ argv, at }) => {
    expect(findCommandName(argv, specs)).toBe(at);
  });
});

it("flag usages are sorted and aligned, with type names and non-zero defaults", () => {
  expect(flagUsages(specs)).toBe(
    [
      "      --force              force it",
      "      --grace-period int   seconds (default -1)",
      "  -n, --namespace string   the namespace",
    ].join("\n"),
  );
});
