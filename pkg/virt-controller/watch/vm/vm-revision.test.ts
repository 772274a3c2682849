import { describe, expect, it } from "vitest";
import type { VirtualMachine } from "../../../api/generated/v1.js";
import { lastRevisionSpec, newVMRevision, type ControllerRevision } from "./vm-revision.js";

const vm = (generation: number, hostname: string): VirtualMachine => ({
  metadata: { name: "vm", namespace: "default", uid: "vm-uid", generation },
  spec: { template: { spec: { domain: { devices: {} }, hostname } } },
});

describe("lastRevisionSpec", () => {
  it("answers the spec of the VM's start revision with the highest generation", () => {
    const revisions: ControllerRevision[] = [newVMRevision(vm(3, "c")), newVMRevision(vm(12, "l"))];
    expect(lastRevisionSpec(vm(13, "m"), revisions)?.template?.spec?.hostname).toBe("l");
  });

  it("ignores revisions that are not this VM's start revisions", () => {
    const foreign = newVMRevision({
      ...vm(7, "x"),
      metadata: { name: "vm", uid: "other-uid", generation: 7 },
    });
    const unnumbered: ControllerRevision = {
      ...newVMRevision(vm(9, "y")),
      metadata: { name: "revision-start-vm-vm-uid-latest" },
    };
    expect(lastRevisionSpec(vm(13, "m"), [foreign, unnumbered])).toBeUndefined();
  });
});
