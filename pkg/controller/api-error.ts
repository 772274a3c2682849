import { z } from "zod";

// A failed apiserver call, carrying the metav1.Status the server answered with (reason, message, code),
// so callers branch on reasons the way client-go's apierrors helpers do.

const statusSchema = z.looseObject({
  kind: z.literal("Status"),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
  details: z.looseObject({}).optional(),
});

export type Status = z.infer<typeof statusSchema>;

/** The metav1.Status in a response body or watch event, if it is one. */
export function parseStatus(body: unknown): Status | undefined {
  const parsed = statusSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly status?: Status,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** Builds the error from an HTTP status code and the (possibly non-Status) response body. */
  static fromResponse(code: number, body: unknown, what: string): ApiError {
    const parsed = statusSchema.safeParse(body);
    if (parsed.success) {
      const status = parsed.data;
      return new ApiError(
        status.code ?? code,
        status.reason ?? "",
        status.message ?? `${what}: HTTP ${code}`,
        status,
      );
    }
    return new ApiError(code, "", `${what}: HTTP ${code}`);
  }

  /** A watch ERROR event carries a Status as its object. */
  static fromWatchStatus(object: unknown): ApiError {
    const parsed = statusSchema.safeParse(object);
    if (!parsed.success) return new ApiError(500, "", "watch error event without a Status");
    const status = parsed.data;
    return new ApiError(status.code ?? 500, status.reason ?? "", status.message ?? "watch error", status);
  }
}

// Like client-go's apierrors, prefer the Status reason and fall back to the code when the reason is empty.
function matches(err: unknown, code: number, reasons: readonly string[]): boolean {
  if (!(err instanceof ApiError)) return false;
  return err.reason ? reasons.includes(err.reason) : err.code === code;
}

export const isNotFound = (err: unknown): boolean => matches(err, 404, ["NotFound"]);
export const isForbidden = (err: unknown): boolean => matches(err, 403, ["Forbidden"]);
/** An update lost an optimistic-concurrency race (stale resourceVersion). */
export const isConflict = (err: unknown): boolean => matches(err, 409, ["Conflict"]);
/** 422: the object (or the patched result) failed validation. */
export const isInvalid = (err: unknown): boolean => matches(err, 422, ["Invalid"]);
export const isAlreadyExists = (err: unknown): boolean => matches(err, 409, ["AlreadyExists"]);
/** 410: the resourceVersion a watch or list asked for is too old ("Expired" or "Gone"). */
export const isGone = (err: unknown): boolean => matches(err, 410, ["Expired", "Gone"]);
