import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { componentLogger, installNamespace, shutdownSignal } from "./service.js";

describe("service", () => {
  it("reads the install namespace from the service account, defaulting to kubevirt", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-"));
    writeFileSync(join(dir, "namespace"), "my-kubevirt\n");
    expect(installNamespace(join(dir, "namespace"))).toBe("my-kubevirt");
    expect(installNamespace(join(dir, "missing"))).toBe("kubevirt");
  });

  it("logs at info by default and debug from verbosity 4", () => {
    expect(componentLogger("virt-api", undefined).level).toBe("info");
    expect(componentLogger("virt-api", "4").level).toBe("debug");
  });

  it("aborts on SIGTERM", () => {
    const signal = shutdownSignal(componentLogger("test", 2));
    expect(signal.aborted).toBe(false);
    process.emit("SIGTERM");
    expect(signal.aborted).toBe(true);
  });
});
