// Generates pkg/libvirt/generated/*.ts from libvirt's RPC protocol definitions (XDR language):
// TypeScript types, XDR codecs and procedure tables for the libvirt client in pkg/libvirt.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GeneratedFile } from "../generated-file.js";
import { formatTypeScript } from "../api-gen/format.js";
import { emitModule } from "./emit-module.js";
import { parseXdr } from "./parser.js";
import { findPrograms, unclaimedPayloads } from "./procedures.js";
import type { ProgramSpec } from "./procedures.js";
import { SymbolTable } from "./symbols.js";
import type { SpecModule } from "./symbols.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");

export const GENERATED_DIR = "pkg/libvirt/generated";

/**
 * The specification files, in dependency order (a file may use names of the files before it).
 * `protocol/` holds libvirt's files verbatim; `definitions/` our declarations of the values they
 * take from libvirt's C headers.
 */
export const SPEC_FILES = [
  { source: "hack/libvirt-gen/definitions/libvirt_api.x", module: "libvirt-api", alias: "api" },
  {
    source: "hack/libvirt-gen/definitions/keepalive_protocol.x",
    module: "keepalive-protocol",
    alias: "keepalive",
  },
  { source: "hack/libvirt-gen/protocol/virnetprotocol.x", module: "virnet-protocol", alias: "virnet" },
  { source: "hack/libvirt-gen/protocol/remote_protocol.x", module: "remote-protocol", alias: "remote" },
  { source: "hack/libvirt-gen/protocol/qemu_protocol.x", module: "qemu-protocol", alias: "qemu" },
] as const;

export interface LibvirtProtocol {
  modules: SpecModule[];
  symbols: SymbolTable;
  programs: ProgramSpec[];
}

/** Parses and checks every specification file. */
export function loadLibvirtProtocol(): LibvirtProtocol {
  const modules = SPEC_FILES.map((spec) => {
    const file = spec.source.split("/").pop() ?? spec.source;
    return { ...spec, definitions: parseXdr(file, readFileSync(join(repoRoot, spec.source), "utf8")) };
  });
  const symbols = new SymbolTable(modules);
  const programs = findPrograms(symbols);
  const unclaimed = unclaimedPayloads(symbols, programs);
  if (unclaimed.length > 0) throw new Error(`payload structs without a procedure: ${unclaimed.join(", ")}`);
  return { modules, symbols, programs };
}

export function generateLibvirtSources(): GeneratedFile[] {
  const { modules, symbols, programs } = loadLibvirtProtocol();
  const sources = modules.map((module) => emitModule(module, symbols, programs));
  const formatted = formatTypeScript(sources);
  return modules.map((module, index) => ({
    path: `${GENERATED_DIR}/${module.module}.ts`,
    content: formatted[index] ?? "",
  }));
}
