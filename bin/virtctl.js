#!/usr/bin/env node
// Launcher for `virtctl` and `kubectl-virt`: runs the compiled entry point from dist/ when the
// package was built, otherwise the TypeScript source through tsx from this package's dependencies.
import { existsSync } from "node:fs";
import process from "node:process";
import { URL, fileURLToPath, pathToFileURL } from "node:url";

const packageRoot = fileURLToPath(new URL("..", import.meta.url));
const compiled = `${packageRoot}dist/cmd/virtctl/main.js`;

if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write(`virtctl: ${compiled} is missing and tsx is not installed: run "npm run build"\n`);
    process.exit(1);
  }
  register();
  await import(pathToFileURL(`${packageRoot}cmd/virtctl/main.ts`).href);
}
