import { describe, expect, it } from "vitest";
import { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isNotFound } from "./api-error.js";

const status = (code: number, reason: string) => ({
  kind: "Status",
  status: "Failure",
  code,
  reason,
  message: "m",
});

describe("ApiError predicates", () => {
  it.each([
    [ApiError.fromResponse(404, status(404, "NotFound"), "get"), "notFound"],
    [ApiError.fromResponse(404, "plain text 404", "get"), "notFound"],
    [ApiError.fromResponse(409, status(409, "Conflict"), "update"), "conflict"],
    [ApiError.fromResponse(409, status(409, "AlreadyExists"), "create"), "alreadyExists"],
    [ApiError.fromResponse(410, status(410, "Expired"), "list"), "gone"],
    [ApiError.fromWatchStatus(status(410, "Gone")), "gone"],
    [ApiError.fromResponse(403, status(403, "Forbidden"), "get"), "forbidden"],
    [ApiError.fromResponse(500, status(500, "InternalError"), "get"), "none"],
  ])("%o is %s", (err, expected) => {
    const actual = [
      isNotFound(err) && "notFound",
      isConflict(err) && "conflict",
      isAlreadyExists(err) && "alreadyExists",
      isGone(err) && "gone",
      isForbidden(err) && "forbidden",
    ].filter(Boolean);
    expect(actual).toEqual(expected === "none" ? [] : [expected]);
  });

  it("keeps the server's message and falls back to a descriptive one", () => {
    expect(ApiError.fromResponse(403, { ...status(403, "Forbidden"), message: "nope" }, "get").message).toBe(
      "nope",
    );
    expect(ApiError.fromResponse(502, undefined, "GET /api/v1/pods").message).toBe(
      "GET /api/v1/pods: HTTP 502",
    );
    expect(isNotFound(new Error("404"))).toBe(false);
  });
});
