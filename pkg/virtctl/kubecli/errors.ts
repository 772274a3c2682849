// Errors from the API server, worded the way client-go's StatusError reads them: the Status
// message when the body is a Status, otherwise apimachinery's generic text for the code.
import { z } from "zod";

const StatusSchema = z.looseObject({
  kind: z.literal("Status"),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().optional(),
});

const GENERIC_MESSAGES: Record<number, string> = {
  400: "the server rejected our request for an unknown reason",
  401: "the server has asked for the client to provide credentials",
  403: "the server does not allow access to the requested resource",
  404: "the server could not find the requested resource",
  405: "the server does not allow this method on the requested resource",
  409: "the server reported a conflict",
  422: "the server rejected our request due to an error in our request",
  429: "the server has received too many requests and has asked us to try again later",
};

export class ApiError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

/** The error for a response whose status is not 2xx. */
export function apiErrorFrom(statusCode: number, body: string): ApiError {
  const message = statusMessage(body);
  if (message) return new ApiError(message, statusCode);
  const generic = GENERIC_MESSAGES[statusCode];
  if (generic) return new ApiError(generic, statusCode);
  const detail = body.trim() || `unknown (${statusCode})`;
  return new ApiError(
    `an error on the server ("${detail}") has prevented the request from succeeding`,
    statusCode,
  );
}

/** The message of a Kubernetes Status body, if the body is one. */
export function statusMessage(body: string): string | undefined {
  try {
    const parsed = StatusSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.message || undefined : undefined;
  } catch {
    return undefined;
  }
}
