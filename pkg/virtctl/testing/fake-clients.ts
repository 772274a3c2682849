// Stand-ins for the system's ssh and scp in virtctl's tests: on $PATH for the file's tests, they print the
// arguments they were given, one per line, and exit 3.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

export function useFakeLocalClients(names: readonly string[] = ["ssh", "scp"]): void {
  let bin = "";
  let savedPath: string | undefined;
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), "virtctl-clients-"));
    for (const name of names) {
      writeFileSync(join(bin, name), `#!/bin/sh\nfor a in "$@"; do echo "$a"; done\nexit 3\n`);
      chmodSync(join(bin, name), 0o755);
    }
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ""}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    rmSync(bin, { recursive: true, force: true });
  });
}
