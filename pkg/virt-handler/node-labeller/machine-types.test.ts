import { describe, expect, it } from "vitest";
import { detectMachineTypes, machineTypeLabels, parseMachineHelp } from "./machine-types.js";

const qemuHelp = `Supported machines are:
microvm              microvm (i386)
pc                   Standard PC (i440FX + PIIX, 1996) (alias of pc-i440fx-7.2)
pc-i440fx-7.2        Standard PC (i440FX + PIIX, 1996) (default)
q35                  Standard PC (Q35 + ICH9, 2009) (alias of pc-q35-7.2)
pc-q35-7.2           Standard PC (Q35 + ICH9, 2009)
pc-q35-7.1           Standard PC (Q35 + ICH9, 2009)
isapc                ISA-only PC
none                 empty machine
`;

describe("machine types", () => {
  it("keeps the q35 alias and the versioned pc-q35 machines only", () => {
    expect(parseMachineHelp(qemuHelp)).toEqual(["pc-q35-7.1", "pc-q35-7.2", "q35"]);
  });

  it("names the labels as upstream's node labeller does", () => {
    expect(machineTypeLabels(["q35", "pc-q35-7.2"])).toEqual({
      "machine-type.node.kubevirt.io/q35": "true",
      "machine-type.node.kubevirt.io/pc-q35-7.2": "true",
    });
  });

  it("falls back to q35 when the QEMU binary is missing", async () => {
    expect(await detectMachineTypes("/nonexistent/qemu-system-x86_64")).toEqual(["q35"]);
  });
});
