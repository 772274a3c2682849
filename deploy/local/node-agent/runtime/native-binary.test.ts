import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNativeBinary, sourceFiles } from "./native-binary.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "native-binary-"));
  await mkdir(path.join(dir, "cmd/hello"), { recursive: true });
  await mkdir(path.join(dir, "pkg/native"), { recursive: true });
  await writeFile(path.join(dir, "pkg/native/greeting.h"), '#define GREETING "hello"\n');
  await writeFile(
    path.join(dir, "cmd/hello/main.c"),
    '#include <stdio.h>\n#include "../../pkg/native/greeting.h"\nint main(void) { puts(GREETING); return 0; }\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("native binaries", () => {
  it("are made of the program and the local headers it includes", async () => {
    expect(await sourceFiles(path.join(dir, "cmd/hello/main.c"))).toEqual([
      path.join(dir, "cmd/hello/main.c"),
      path.join(dir, "pkg/native/greeting.h"),
    ]);
  });

  it("are rebuilt when an included header changes", async () => {
    const options = { binDir: path.join(dir, "bin") };
    const source = path.join(dir, "cmd/hello/main.c");
    const first = await ensureNativeBinary(source, options);
    expect((await promisify(execFile)(first)).stdout).toBe("hello\n");
    expect(await ensureNativeBinary(source, options)).toBe(first);
    await writeFile(path.join(dir, "pkg/native/greeting.h"), '#define GREETING "hi"\n');
    const second = await ensureNativeBinary(source, options);
    expect(second).not.toBe(first);
    expect((await promisify(execFile)(second)).stdout).toBe("hi\n");
  }, 60_000);
});
