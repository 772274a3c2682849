import { describe, expect, it } from "vitest";
import { containerFieldPath, KubeEventRecorder } from "./events.js";
import { FakeKubeClient } from "./fake-kube-client.js";
import { podSchema } from "./k8s-types.js";
import { silentLogger } from "./logger.js";

const pod = podSchema.parse({
  metadata: { name: "web", namespace: "apps", uid: "u1" },
  spec: { containers: [{ name: "app" }], initContainers: [{ name: "setup" }] },
});

describe("KubeEventRecorder", () => {
  it("posts kubelet-sourced events about the pod and skips repeats within ten minutes", async () => {
    const client = new FakeKubeClient();
    const clock = { t: Date.parse("2025-01-01T00:00:00Z") };
    const recorder = new KubeEventRecorder(client, "node01", silentLogger(), () => clock.t);
    recorder.record(
      pod,
      "Warning",
      "BackOff",
      "Back-off restarting failed container app",
      "spec.containers{app}",
    );
    recorder.record(
      pod,
      "Warning",
      "BackOff",
      "Back-off restarting failed container app",
      "spec.containers{app}",
    );
    clock.t += 10 * 60_000 + 1;
    recorder.record(
      pod,
      "Warning",
      "BackOff",
      "Back-off restarting failed container app",
      "spec.containers{app}",
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(client.events).toHaveLength(2);
    expect(client.events[0]).toMatchObject({
      metadata: { namespace: "apps" },
      involvedObject: {
        kind: "Pod",
        name: "web",
        namespace: "apps",
        uid: "u1",
        fieldPath: "spec.containers{app}",
      },
      reason: "BackOff",
      type: "Warning",
      source: { component: "kubelet", host: "node01" },
      firstTimestamp: "2025-01-01T00:00:00Z",
      count: 1,
    });
  });

  it("names init containers' field paths as kubelet does", () => {
    expect(containerFieldPath(pod, "setup")).toBe("spec.initContainers{setup}");
    expect(containerFieldPath(pod, "app")).toBe("spec.containers{app}");
  });
});
