import { describe, expect, it } from "vitest";
import { highestCompatibleVersion } from "./version.js";

describe("highestCompatibleVersion", () => {
  it.each([
    [[1], [1], 1],
    [[1, 2, 3], [2, 1], 2],
    [[3, 1, 2], [1, 2, 3], 3],
  ])("server %j, client %j -> %i", (server, client, expected) => {
    expect(highestCompatibleVersion(server, client)).toBe(expected);
  });

  it("names both sides when they share no version", () => {
    expect(() => highestCompatibleVersion([2, 3], [1])).toThrow(
      "no compatible version found, server: [2 3], client: [1]",
    );
  });
});
