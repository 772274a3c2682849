// The request handler of virt-operator's admission webhooks: path → admitter, AdmissionReview in and out.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OperatorClient } from "../cluster.js";
import {
  KUBEVIRT_CREATE_VALIDATE_PATH,
  KUBEVIRT_DELETE_VALIDATE_PATH,
  KUBEVIRT_UPDATE_VALIDATE_PATH,
} from "../resource/generate/components/names.js";
import { reply, type RequestHandler } from "../tls-server.js";
import { parseAdmissionReview, reviewResponse } from "./admission-review.js";
import type { Admitter } from "./kubevirt-admitters.js";
import {
  kubeVirtCreateAdmitter,
  kubeVirtDeletionAdmitter,
  kubeVirtUpdateAdmitter,
} from "./kubevirt-admitters.js";
import { errorMessage } from "../../util/error-message.js";

const MAX_BODY_BYTES = 3 * 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
}

export function operatorAdmitters(client: OperatorClient): Record<string, Admitter> {
  return {
    [KUBEVIRT_DELETE_VALIDATE_PATH]: kubeVirtDeletionAdmitter(client),
    [KUBEVIRT_UPDATE_VALIDATE_PATH]: kubeVirtUpdateAdmitter(),
    [KUBEVIRT_CREATE_VALIDATE_PATH]: kubeVirtCreateAdmitter(client),
  };
}

export function admissionHandler(admitters: Readonly<Record<string, Admitter>>): RequestHandler {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const admitter = admitters[new URL(req.url ?? "/", "https://webhook").pathname];
    if (!admitter) return reply(res, 404, "not found");
    if (req.method !== "POST") return reply(res, 405, "only POST is served");
    let request;
    try {
      request = parseAdmissionReview(await readJson(req));
    } catch (err) {
      return reply(res, 400, errorMessage(err));
    }
    reply(res, 200, reviewResponse(request.uid, await admitter(request)));
  };
}
