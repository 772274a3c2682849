import { describe, expect, it } from "vitest";
import { parsePort } from "./ports.js";

describe("parsePort (upstream's table)", () => {
  it.each([
    ["8080", { local: 8080, remote: 8080, protocol: "tcp" }],
    ["8080:9090", { local: 8080, remote: 9090, protocol: "tcp" }],
    ["udp/8080:9090", { local: 8080, remote: 9090, protocol: "udp" }],
    ["tcp/2222:22", { local: 2222, remote: 22, protocol: "tcp" }],
    ["8080::9090", { local: 8080, remote: 9090, protocol: "tcp" }],
    [":22", { local: 22, remote: 22, protocol: "tcp" }],
    ["sctp/5000", { local: 5000, remote: 5000, protocol: "sctp" }],
  ])("%s", (arg, expected) => {
    expect(parsePort(arg)).toEqual(expected);
  });

  it.each([
    ["", "invalid port, missing local and/or remote port"],
    ["udp/", "invalid port, missing local and/or remote port"],
    ["abc", 'strconv.Atoi: parsing "abc": invalid syntax'],
    ["8080:x", 'strconv.Atoi: parsing "x": invalid syntax'],
  ])("refuses %j", (arg, message) => {
    expect(() => parsePort(arg)).toThrow(message);
  });
});
