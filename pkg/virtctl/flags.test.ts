import { describe, expect, it } from "vitest";
import type { FlagSpec } from "./flags.js";
import {
  checkExclusiveFlagGroups,
  checkRequiredFlags,
  findCommandName,
  flagUsages,
  parseFlags,
} from "./flags.js";

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

describe("repeated flags", () => {
  const repeated: FlagSpec[] = [
    { name: "volume", kind: "stringArray", defaultValue: [], usage: "a volume" },
    { name: "key", kind: "stringSlice", defaultValue: ["default"], usage: "keys" },
  ];

  it("a stringArray flag collects each occurrence as given, commas included", () => {
    const parsed = parseFlags(["--volume=a,b", "--volume", "c"], repeated);
    expect(parsed.strings("volume")).toEqual(["a,b", "c"]);
    expect(parseFlags([], repeated).strings("volume")).toEqual([]);
  });

  it("a stringArray flag replaces its default, and takes values that look like flags (ssh's -t)", () => {
    const array: FlagSpec[] = [
      { name: "opt", short: "t", kind: "stringArray", defaultValue: ["from-default"], usage: "" },
    ];
    expect(parseFlags([], array).strings("opt")).toEqual(["from-default"]);
    const parsed = parseFlags(["-t", "-o A=b,c", "--opt=-v", "vm", "-t-q"], array);
    expect(parsed.strings("opt")).toEqual(["-o A=b,c", "-v", "-q"]);
    expect(parsed.positionals).toEqual(["vm"]);
  });

  it("a stringSlice flag replaces its default, then appends each occurrence split as CSV", () => {
    expect(parseFlags([], repeated).strings("key")).toEqual(["default"]);
    expect(parseFlags(["--key=a,b", "--key", '"c,d"'], repeated).strings("key")).toEqual(["a", "b", "c,d"]);
    expect(parseFlags(["--key="], repeated).strings("key")).toEqual([]);
  });

  it("refuses a stringSlice value that is no CSV record, in pflag's words", () => {
    expect(() => parseFlags(['--key=a"b'], repeated)).toThrow(
      'invalid argument "a\\"b" for "--key" flag: parse error on line 1, column 2: bare " in non-quoted-field',
    );
  });

  it("usages show pflag's type names and non-empty defaults", () => {
    expect(flagUsages(repeated)).toBe(
      ["      --key strings          keys (default [default])", "      --volume stringArray   a volume"].join(
        "\n",
      ),
    );
  });
});

describe("flag usages", () => {
  const declared: FlagSpec[] = [
    { name: "zeta", kind: "bool", defaultValue: true, usage: "first line\nsecond line" },
    { name: "alpha", kind: "string", defaultValue: "x", usage: "alpha" },
  ];

  it("keep the declared order when not sorted, align continuation lines and show a true default", () => {
    expect(flagUsages(declared, false)).toBe(
      [
        "      --zeta           first line",
        "                       second line (default true)",
        '      --alpha string   alpha (default "x")',
      ].join("\n"),
    );
  });
});

describe("checkExclusiveFlagGroups", () => {
  const groups = [
    ["memory", "instancetype", "infer-instancetype"],
    ["cloud-init-user-data", "user"],
  ];

  it("lets one flag of each group through", () => {
    expect(() => checkExclusiveFlagGroups(groups, new Set(["memory", "user"]))).not.toThrow();
  });

  it("refuses the first group, by cobra's order, naming the given flags sorted", () => {
    expect(() =>
      checkExclusiveFlagGroups(groups, new Set(["memory", "instancetype", "user", "cloud-init-user-data"])),
    ).toThrow(
      "if any flags in the group [cloud-init-user-data user] are set none of the others can be; [cloud-init-user-data user] were all set",
    );
    expect(() => checkExclusiveFlagGroups(groups, new Set(["memory", "instancetype"]))).toThrow(
      "if any flags in the group [memory instancetype infer-instancetype] are set none of the others can be; [instancetype memory] were all set",
    );
  });
});

describe("checkRequiredFlags", () => {
  it("names every required flag not given, sorted as pflag visits them", () => {
    expect(() => checkRequiredFlags(["memory", "cpu"], new Set(["cpu", "memory"]))).not.toThrow();
    expect(() => checkRequiredFlags(["memory", "cpu"], new Set())).toThrow(
      'required flag(s) "cpu", "memory" not set',
    );
    expect(() => checkRequiredFlags(["memory", "cpu"], new Set(["cpu"]))).toThrow(
      'required flag(s) "memory" not set',
    );
  });
});

describe("uint32 flags", () => {
  const specs = [{ name: "cpu", kind: "uint32" as const, defaultValue: 0, usage: "count" }];
  it("read in any base Go knows, refused in pflag's words", () => {
    expect(parseFlags(["--cpu=0x10"], specs).int("cpu")).toBe(16);
    expect(() => parseFlags(["--cpu", "-1"], specs)).toThrow(
      'invalid argument "-1" for "--cpu" flag: strconv.ParseUint: parsing "-1": invalid syntax',
    );
    expect(flagUsages(specs)).toBe("      --cpu uint32   count");
  });
});

describe("stringToString flags", () => {
  const selector: FlagSpec = { name: "sel", kind: "stringToString", defaultValue: {}, usage: "pairs" };
  const parse = (...argv: string[]) => parseFlags(argv, [selector]).stringMap("sel");

  it.each([
    { argv: [], map: {} },
    { argv: ["--sel", "a=1"], map: { a: "1" } },
    { argv: ["--sel", '"a=1"'], map: { a: "1" } },
    { argv: ["--sel", "a=1,b=2"], map: { a: "1", b: "2" } },
    { argv: ["--sel", "a=x=y"], map: { a: "x=y" } },
    { argv: ["--sel", 'a=1,"b=2,3"'], map: { a: "1", b: "2,3" } },
    { argv: ["--sel=a=1", "--sel", "b=2", "--sel", "a=3"], map: { a: "3", b: "2" } },
  ])("$argv → $map", ({ argv, map }) => {
    expect(parse(...argv)).toEqual(map);
  });

  it.each([
    ["a", 'invalid argument "a" for "--sel" flag: a must be formatted as key=value'],
    ["a,b", 'invalid argument "a,b" for "--sel" flag: a,b must be formatted as key=value'],
    ["a=1,b,c=2", 'invalid argument "a=1,b,c=2" for "--sel" flag: b must be formatted as key=value'],
    [
      'a=1,b"=2',
      `invalid argument "a=1,b\\"=2" for "--sel" flag: parse error on line 1, column 6: bare " in non-quoted-field`,
    ],
  ])("refuses %s", (value, message) => {
    expect(() => parse("--sel", value)).toThrow(message);
  });

  it("shows its type and its default, even when empty, as pflag does", () => {
    expect(flagUsages([selector])).toBe("      --sel stringToString   pairs (default [])");
    expect(flagUsages([{ ...selector, defaultValue: { b: "2", a: "x,y" } }])).toBe(
      '      --sel stringToString   pairs (default ["a=x,y",b=2])',
    );
  });
});
