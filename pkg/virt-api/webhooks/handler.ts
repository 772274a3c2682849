// One AdmissionReview in, one out: never throws. A body that is not an AdmissionReview gets a 400
// Status; a review for the wrong resource, or a mutator/admitter that fails, gets a denial.
import { badRequest, type Status } from "../rest/status.js";
import {
  checkResource,
  denied,
  parseAdmissionReview,
  toReviewResponse,
  type AdmissionReviewResponse,
} from "./admission-review.js";
import type { WebhookContext, WebhookRoute } from "./routes.js";
import { errorMessage } from "../../util/error-message.js";

export type AdmissionReply = { code: 200; body: AdmissionReviewResponse } | { code: 400; body: Status };

export async function handleAdmission(
  body: unknown,
  route: WebhookRoute,
  context: WebhookContext,
): Promise<AdmissionReply> {
  const parsed = parseAdmissionReview(body);
  if (!parsed.ok) return { code: 400, body: badRequest(parsed.message) };
  const { request } = parsed;
  const wrongResource = checkResource(request, route);
  if (wrongResource) return { code: 200, body: toReviewResponse(request.uid, denied(wrongResource)) };
  try {
    return { code: 200, body: toReviewResponse(request.uid, await route.admit(request, context)) };
  } catch (error) {
    // Fail closed with the reason rather than dropping the connection.
    const message = errorMessage(error);
    return { code: 200, body: toReviewResponse(request.uid, denied(message, 500)) };
  }
}
