// The gate in front of the aggregated API: front-proxy authentication from the TLS peer certificate,
// then a SubjectAccessReview for the user named in the identity headers. 401 / 403 Statuses otherwise.
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
import { forbidden, internalError, unauthorized } from "./rest/status.js";

export interface AccessReviewer {
  review(review: SubjectAccessReview): Promise<{ allowed: boolean; reason: string }>;
}

export function peerIdentityOf(request: FastifyRequest): PeerIdentity | undefined {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== "function") return undefined;
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  const commonName = certificate.subject?.CN;
  return {
    verified: socket.authorized === true,
    commonName: Array.isArray(commonName) ? commonName[0] : commonName,
  };
}

export function accessControl(requestHeader: () => RequestHeaderConfig, reviewer: AccessReviewer) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const path = request.url.split("?")[0] ?? "";
    if (NO_AUTH_ENDPOINTS.has(path)) return;
    const config = requestHeader();
    const unauthenticated = authenticateProxy(peerIdentityOf(request), config);
    if (unauthenticated) {
      await reply.code(401).send(unauthorized(unauthenticated));
      return;
    }
    const review = accessReviewFor(request.method, path, request.raw.headersDistinct, config);
    if (typeof review === "string") {
      await reply.code(401).send(unauthorized(review));
      return;
    }
    let verdict: { allowed: boolean; reason: string };
    try {
      verdict = await reviewer.review(review);
    } catch (error) {
      request.log.error({ err: error }, "internal error during auth request");
      await reply.code(500).send(internalError("internal server error"));
      return;
    }
    if (!verdict.allowed) await reply.code(403).send(forbidden(forbiddenMessage(review, verdict.reason)));
  };
}
