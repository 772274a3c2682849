// Errors from the API server as virtctl prints them, worded the way client-go's StatusError reads them:
// the Status message when the body is a Status, otherwise apimachinery's generic text for the code. The
// error itself is the machinery's ApiError (code, reason, message), as every other client's.
import { ApiError, parseStatus, type Status } from "../../controller/api-error.js";

export { ApiError };

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

/** The error for a response whose status is not 2xx. */
export function apiErrorFrom(statusCode: number, body: string): ApiError {
  const status = statusOf(body);
  if (status?.message)
    return new ApiError(status.code ?? statusCode, status.reason ?? "", status.message, status);
  const generic = GENERIC_MESSAGES[statusCode];
  if (generic) return new ApiError(statusCode, "", generic);
  const detail = body.trim() || `unknown (${statusCode})`;
  return new ApiError(
    statusCode,
    "",
    `an error on the server ("${detail}") has prevented the request from succeeding`,
  );
}

/** The message of a Kubernetes Status body, if the body is one. */
export function statusMessage(body: string): string | undefined {
  return statusOf(body)?.message || undefined;
}

function statusOf(body: string): Status | undefined {
  try {
    return parseStatus(JSON.parse(body));
  } catch {
    return undefined;
  }
}
