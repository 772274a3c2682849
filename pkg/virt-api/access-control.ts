// The gate in front of the aggregated API: front-proxy authentication from the TLS peer certificate,
// then a SubjectAccessReview for the user named in the identity headers. 401 / 403 Statuses otherwise.
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  accessReviewFor,
  authenticateProxy,
  forbiddenMessage,
  NO_AUTH_ENDPOINTS,
  type PeerIdentity,
  type RequestHeaderConfig,
  type SubjectAccessReview,
} from "./rest/authorizer.js";
import { forbidden, internalError, unauthorized, type Status } from "./rest/status.js";

export interface AccessReviewer {
  review(review: SubjectAccessReview): Promise<{ allowed: boolean; reason: string }>;
}

/** What the TLS layer of a connection knows about the client's certificate. */
export function peerIdentityOfSocket(socket: Partial<TLSSocket>): PeerIdentity | undefined {
  if (typeof socket.getPeerCertificate !== "function") return undefined;
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  const commonName = certificate.subject?.CN;
  return {
    verified: socket.authorized === true,
    commonName: Array.isArray(commonName) ? commonName[0] : commonName,
  };
}

export function peerIdentityOf(request: FastifyRequest): PeerIdentity | undefined {
  return peerIdentityOfSocket(request.raw.socket as Partial<TLSSocket>);
}

/**
 * The refusal for a request, or undefined when it may proceed. Shared by fastify's hook and the WebSocket
 * upgrades, which node hands over before fastify sees them.
 */
export async function checkAccess(
  request: IncomingMessage,
  requestHeader: RequestHeaderConfig,
  reviewer: AccessReviewer,
  logError: (error: unknown) => void,
): Promise<Status | undefined> {
  const path = request.url?.split("?")[0] ?? "";
  if (NO_AUTH_ENDPOINTS.has(path)) return undefined;
  const unauthenticated = authenticateProxy(
    peerIdentityOfSocket(request.socket as Partial<TLSSocket>),
    requestHeader,
  );
  if (unauthenticated) return unauthorized(unauthenticated);
  const review = accessReviewFor(request.method ?? "", path, request.headersDistinct, requestHeader);
  if (typeof review === "string") return unauthorized(review);
  let verdict: { allowed: boolean; reason: string };
  try {
    verdict = await reviewer.review(review);
  } catch (error) {
    logError(error);
    return internalError("internal server error");
  }
  return verdict.allowed ? undefined : forbidden(forbiddenMessage(review, verdict.reason));
}

export function accessControl(requestHeader: () => RequestHeaderConfig, reviewer: AccessReviewer) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const refused = await checkAccess(request.raw, requestHeader(), reviewer, (error) =>
      request.log.error({ err: error }, "internal error during auth request"),
    );
    if (refused) await reply.code(refused.code).send(refused);
  };
}
