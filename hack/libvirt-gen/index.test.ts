import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GENERATED_DIR, generateLibvirtSources, loadLibvirtProtocol } from "./index.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("libvirt's protocol files", () => {
  const { programs, symbols } = loadLibvirtProtocol();
  const program = (prefix: string) => programs.find((p) => p.prefix === prefix);
  const procedure = (prefix: string, name: string) =>
    program(prefix)?.procedures.find((p) => p.name === name);

  it("define the remote, qemu and keepalive programs with their numbers", () => {
    expect(programs.map((p) => [p.prefix, symbols.constants.get(p.programConstant)?.value])).toEqual([
      ["keepalive", 0x6b656570],
      ["remote", 0x20008086],
      ["qemu", 0x20008087],
    ]);
    // libvirt 9.0.0 numbers its remote procedures 1..443 without gaps.
    const numbers = program("remote")?.procedures.map((p) => p.number);
    expect(numbers).toEqual(Array.from({ length: 443 }, (_, i) => i + 1));
    expect(program("qemu")?.procedures).toHaveLength(7);
  });

  it.each([
    [
      "remote",
      "REMOTE_PROC_CONNECT_OPEN",
      { number: 1, kind: "call", args: "remote_connect_open_args", ret: null, priority: "high" },
    ],
    [
      "remote",
      "REMOTE_PROC_DOMAIN_GET_INFO",
      { number: 16, args: "remote_domain_get_info_args", ret: "remote_domain_get_info_ret" },
    ],
    ["remote", "REMOTE_PROC_DOMAIN_SCREENSHOT", { kind: "call", stream: "read" }],
    ["remote", "REMOTE_PROC_STORAGE_VOL_UPLOAD", { kind: "call", stream: "write" }],
    [
      "remote",
      "REMOTE_PROC_DOMAIN_EVENT_CALLBACK_LIFECYCLE",
      { number: 318, kind: "message", message: "remote_domain_event_callback_lifecycle_msg", args: null },
    ],
    ["qemu", "QEMU_PROC_DOMAIN_MONITOR_COMMAND", { number: 1, args: "qemu_domain_monitor_command_args" }],
    ["keepalive", "KEEPALIVE_PROC_PING", { number: 1, kind: "message", message: null }],
  ])("%s %s is described as libvirt defines it", (prefix, name, expected) => {
    expect(procedure(prefix, name)).toMatchObject(expected);
  });

  it("resolve the names they take from libvirt's headers", () => {
    expect(symbols.constants.get("VIR_UUID_BUFLEN")?.value).toBe(16);
    expect(symbols.constants.get("REMOTE_SECURITY_MODEL_MAX")?.value).toBe(257);
    expect(symbols.constants.get("VIR_DOMAIN_EVENT_STOPPED_DESTROYED")?.value).toBe(1);
  });
});

describe("generateLibvirtSources", () => {
  const files = generateLibvirtSources();

  it("writes one module per specification file", () => {
    expect(files.map((f) => f.path)).toEqual(
      ["libvirt-api", "keepalive-protocol", "virnet-protocol", "remote-protocol", "qemu-protocol"].map(
        (name) => `${GENERATED_DIR}/${name}.ts`,
      ),
    );
  });

  // Generation runs prettier over ~13k lines: allow for a busy machine.
  it("is deterministic", () => {
    expect(generateLibvirtSources()).toEqual(files);
  }, 120_000);

  // `npx tsx hack/libvirt-gen/main.ts` rewrites them.
  it("matches the committed files", () => {
    for (const file of files) {
      const path = join(repoRoot, file.path);
      expect(existsSync(path), `${file.path} is missing`).toBe(true);
      expect(readFileSync(path, "utf8") === file.content, `${file.path} differs from the generator`).toBe(
        true,
      );
    }
  });
});
