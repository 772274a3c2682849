import { describe, expect, it } from "vitest";
import { ApiError } from "../../../pkg/controller/api-error.js";
import type { RestRequest, Transport } from "../../../pkg/controller/rest.js";
import { RestKubeClient } from "./kube-client.js";

/** A transport that answers every request with `answer` and records what was asked. */
function scripted(answer: (req: RestRequest) => unknown): { transport: Transport; requests: RestRequest[] } {
  const requests: RestRequest[] = [];
  return {
    requests,
    transport: {
      request: (req) => {
        requests.push(req);
        try {
          return Promise.resolve(answer(req));
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      },
      stream: () => Promise.reject(new Error("no streams here")),
    },
  };
}

const forbidden = () => {
  // what the Node authorizer answers for a pod the node no longer has a relationship with
  throw ApiError.fromResponse(
    403,
    { kind: "Status", status: "Failure", code: 403, reason: "Forbidden", message: "no relationship found" },
    "get",
  );
};

describe("RestKubeClient.deletePodNow", () => {
  it("takes a 403 on the pod's GET (the Node authorizer's answer for a pod already gone) as nothing to delete", async () => {
    const { transport, requests } = scripted(forbidden);
    await new RestKubeClient(transport).deletePodNow("ns", "evicted", "uid-1");
    expect(requests.map((r) => r.method)).toEqual(["GET"]);
  });

  it("still fails on other errors", async () => {
    const { transport } = scripted(() => {
      throw ApiError.fromResponse(500, undefined, "get");
    });
    await expect(new RestKubeClient(transport).deletePodNow("ns", "p", "uid-1")).rejects.toThrow(/HTTP 500/);
  });
});
