import { describe, expect, it } from "vitest";
import type { AdminClient, HttpResult } from "./apiserver-client.js";
import { CONTROL_PLANE_ROLE_LABEL, labelNodeRoles, roleLabels } from "./control-plane-node.js";

function recordingClient(status = 200) {
  const patches: { path: string; body: object }[] = [];
  const client: AdminClient = {
    get: async (): Promise<HttpResult> => ({ status: 404, body: "" }),
    patch: async (path, body) => {
      patches.push({ path, body });
      return { status, body: "{}" };
    },
  };
  return { client, patches };
}

describe("control-plane node", () => {
  it("gives node01 alone the control-plane role label with an empty value", () => {
    expect(roleLabels("node01")).toEqual({ [CONTROL_PLANE_ROLE_LABEL]: "" });
    expect(roleLabels("node02")).toEqual({});
  });

  it("patches only node01's labels", async () => {
    const { client, patches } = recordingClient();
    await labelNodeRoles(client);
    expect(patches).toEqual([
      {
        path: "/api/v1/nodes/node01",
        body: { metadata: { labels: { "node-role.kubernetes.io/control-plane": "" } } },
      },
    ]);
  });

  it("fails loudly when the apiserver refuses", async () => {
    const { client } = recordingClient(403);
    await expect(labelNodeRoles(client)).rejects.toThrow(/labelling node node01 failed: HTTP 403/);
  });
});
