import { describe, expect, it } from "vitest";
import { errorMessage } from "./error-message.js";

describe("errorMessage", () => {
  it.each([
    [new Error("boom"), "boom"],
    [new TypeError("bad type"), "bad type"],
    ["plain text", "plain text"],
    [42, "42"],
    [undefined, "undefined"],
  ])("%s says %s", (err, message) => expect(errorMessage(err)).toBe(message));
});
