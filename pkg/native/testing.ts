// Test fixture of the small C programs (cmd/<name>/main.c): the program built as the node agent builds it for
// the images, in a scratch folder, and every process a test starts from it SIGKILLed afterwards (a failed test
// leaves its program running; nothing else would stop it).
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { ensureNativeBinary } from "../../deploy/local/node-agent/runtime/native-binary.js";

export interface NativeProgramFixture {
  /** The scratch folder, removed after the file's tests. */
  dir: string;
  /** The built program. */
  binary: string;
  /** Processes to stop after the file's tests. */
  started: Set<ChildProcess>;
}

/** Registers the file's beforeAll/afterAll; the fields are filled once beforeAll ran. */
export function nativeProgram(source: string, name: string): NativeProgramFixture {
  const fixture: NativeProgramFixture = { dir: "", binary: "", started: new Set() };
  beforeAll(async () => {
    fixture.dir = await mkdtemp(path.join(os.tmpdir(), `${name}-`));
    fixture.binary = await ensureNativeBinary(source, { binDir: path.join(fixture.dir, "cache") });
  }, 60_000);
  afterAll(async () => {
    for (const child of fixture.started)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(fixture.dir, { recursive: true, force: true });
  });
  return fixture;
}
