import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The package-local proto is a copy of the node agent's; both sides must keep speaking the same wire format.
function definitions(url: URL): string[] {
  return readFileSync(url, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"));
}

describe("device plugin API copy", () => {
  it("matches the node agent's deviceplugin-v1beta1.proto", () => {
    const nodeAgent = new URL(
      "../../../../../deploy/local/node-agent/deviceplugin-v1beta1.proto",
      import.meta.url,
    );
    expect(definitions(new URL("./api.proto", import.meta.url))).toEqual(definitions(nodeAgent));
  });
});
