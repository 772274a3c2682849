import { describe, expect, it } from "vitest";
import { parseTailFlags } from "./flags.js";

describe("parseTailFlags", () => {
  it.each([
    [
      ["--logfile", "/var/run/kubevirt-private/u/virt-serial0-log"],
      {},
      "/var/run/kubevirt-private/u/virt-serial0-log",
      0,
    ],
    [["--logfile=/l", "--v=4"], {}, "/l", 4],
    [["-v", "2", "--unknown", "--logfile", "/l"], {}, "/l", 2],
    [["--logfile", "/l"], { VIRT_LAUNCHER_LOG_VERBOSITY: "6" }, "/l", 6],
    [["--logfile", "/l", "-v", "1"], { VIRT_LAUNCHER_LOG_VERBOSITY: "many" }, "/l", 1],
  ])("%j with %j", (args, env, logFile, verbosity) => {
    expect(parseTailFlags(args, env)).toEqual({ logFile, verbosity });
  });

  it("requires --logfile, in upstream's words", () => {
    expect(() => parseTailFlags([], {})).toThrow("logfile flags must be provided");
    expect(() => parseTailFlags(["--logfile"], {})).toThrow("flag needs an argument: --logfile");
  });
});
