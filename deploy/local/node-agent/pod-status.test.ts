import { describe, expect, it } from "vitest";
import { podSchema, type ContainerStatus, type Pod } from "./k8s-types.js";
import { podConditions, podPhase } from "./pod-status.js";
import { exitReason, newRecord, toContainerStatus, type ContainerRecord } from "./container-record.js";

function pod(restartPolicy: string, containers: string[], initContainers: string[] = [], extra = {}): Pod {
  return podSchema.parse({
    metadata: { name: "p", namespace: "ns", uid: "u" },
    spec: {
      restartPolicy,
      containers: containers.map((name) => ({ name })),
      initContainers: initContainers.map((name) => ({ name })),
      ...extra,
    },
    status: {
      conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: "2025-01-01T00:00:00Z" }],
    },
  });
}

const T = "2025-01-01T00:00:00Z";
const exit = (exitCode: number) => ({
  attempt: 0,
  exitCode,
  reason: exitReason(exitCode),
  startedAt: T,
  finishedAt: T,
  containerID: "kvts://x",
});

// Container states by shorthand, as toContainerStatus shows them.
const states: Record<string, (name: string) => ContainerStatus> = {
  creating: (name) => toContainerStatus(newRecord(name, "busybox"), { ready: false, started: false }),
  running: (name) => status(name, { running: { containerID: "kvts://a", startedAt: T, attempt: 0 } }, true),
  runningUnready: (name) =>
    status(name, { running: { containerID: "kvts://a", startedAt: T, attempt: 0 } }, false),
  exited0: (name) => status(name, { lastExit: exit(0), waiting: undefined }, false),
  exited1: (name) => status(name, { lastExit: exit(1), waiting: undefined }, false),
  init0: (name) => status(name, { lastExit: exit(0), waiting: undefined }, true),
  backoff: (name) => status(name, { lastExit: exit(1), waiting: { reason: "CrashLoopBackOff" } }, false),
  pullError: (name) => status(name, { waiting: { reason: "ErrImagePull", message: "no such image" } }, false),
};

function status(name: string, fields: Partial<ContainerRecord>, ready: boolean): ContainerStatus {
  const record: ContainerRecord = { ...newRecord(name, "busybox"), everStarted: true, ...fields };
  return toContainerStatus(record, { ready, started: Boolean(record.running) });
}

type Row = [string, string, string[], string[], boolean, string, string, string];

// restart policy, init states, container states, terminal?, phase, Initialized, Ready (status/reason)
const rows: Row[] = [
  ["Always", "", [], ["creating"], false, "Pending", "True", "False/ContainersNotReady"],
  ["Always", "", [], ["running"], false, "Running", "True", "True/"],
  ["Always", "", [], ["runningUnready"], false, "Running", "True", "False/ContainersNotReady"],
  ["Always", "", [], ["running", "pullError"], false, "Pending", "True", "False/ContainersNotReady"],
  ["Always", "", [], ["backoff"], false, "Running", "True", "False/ContainersNotReady"],
  ["Always", "", [], ["exited1"], true, "Failed", "True", "False/PodFailed"],
  ["Always", "", [], ["exited0"], true, "Succeeded", "True/PodCompleted", "False/PodCompleted"],
  ["OnFailure", "", [], ["exited0"], false, "Succeeded", "True/PodCompleted", "False/PodCompleted"],
  ["OnFailure", "", [], ["backoff"], false, "Running", "True", "False/ContainersNotReady"],
  ["Never", "", [], ["exited1"], false, "Failed", "True", "False/PodFailed"],
  ["Never", "", [], ["exited0", "exited1"], false, "Failed", "True", "False/PodFailed"],
  ["Never", "", [], ["exited0", "running"], false, "Running", "True", "False/ContainersNotReady"],
  [
    "Always",
    "i1",
    ["runningUnready"],
    ["creating"],
    false,
    "Pending",
    "False/ContainersNotInitialized",
    "False/ContainersNotReady",
  ],
  [
    "Always",
    "i1",
    ["backoff"],
    ["creating"],
    false,
    "Pending",
    "False/ContainersNotInitialized",
    "False/ContainersNotReady",
  ],
  [
    "Never",
    "i1",
    ["exited1"],
    ["creating"],
    false,
    "Failed",
    "False/ContainersNotInitialized",
    "False/PodFailed",
  ],
  ["Always", "i1", ["init0"], ["running"], false, "Running", "True", "True/"],
];

describe("pod phase and conditions", () => {
  it.each(rows)(
    "%s init=%s %j containers=%j terminal=%s → %s",
    (policy, initName, initStates, containerStates, terminal, phase, init, ready) => {
      const inits = initName ? [initName] : [];
      const names = containerStates.map((_, i) => `c${i}`);
      const p = pod(policy, names, inits);
      const statuses = [
        ...inits.map((name, i) => states[initStates[i] as string]!(name)),
        ...names.map((name, i) => states[containerStates[i] as string]!(name)),
      ];
      const computed = podPhase(p, statuses, terminal);
      expect(computed).toBe(phase);
      const conditions = podConditions(p, statuses, computed, true, "2025-02-02T00:00:00Z");
      const show = (type: string) => {
        const c = conditions.find((x) => x.type === type);
        return c?.status === "True" && !c.reason ? "True" : `${c?.status}/${c?.reason ?? ""}`;
      };
      expect(show("Initialized")).toBe(init);
      expect(show("Ready") === "True" ? "True/" : show("Ready")).toBe(ready);
      expect(show("ContainersReady") === "True" ? "True/" : show("ContainersReady")).toBe(ready);
    },
  );

  it("names the unready and incomplete containers in Go's list format", () => {
    const p = pod("Always", ["a", "b"], ["i1", "i2"]);
    const statuses = [
      states.init0!("i1"),
      states.runningUnready!("i2"),
      states.creating!("a"),
      states.creating!("b"),
    ];
    const conditions = podConditions(p, statuses, "Pending", true, T);
    expect(conditions.find((c) => c.type === "Initialized")?.message).toBe(
      "containers with incomplete status: [i2]",
    );
    expect(conditions.find((c) => c.type === "ContainersReady")?.message).toBe(
      "containers with unready status: [a b]",
    );
    expect(conditions.find((c) => c.type === "Ready")?.message).toBe("containers with unready status: [a b]");
  });

  it("orders kubelet's conditions first, keeps others, and keeps transition times of unchanged conditions", () => {
    const p = pod("Always", ["a"]);
    p.status!.conditions!.push({ type: "Ready", status: "True", lastTransitionTime: "2024-12-31T00:00:00Z" });
    const conditions = podConditions(p, [states.running!("a")], "Running", true, "2025-02-02T00:00:00Z");
    expect(conditions.map((c) => c.type)).toEqual([
      "PodReadyToStartContainers",
      "Initialized",
      "Ready",
      "ContainersReady",
      "PodScheduled",
    ]);
    expect(conditions.find((c) => c.type === "Ready")?.lastTransitionTime).toBe("2024-12-31T00:00:00Z");
    expect(conditions.find((c) => c.type === "ContainersReady")?.lastTransitionTime).toBe(
      "2025-02-02T00:00:00Z",
    );
  });

  it("holds Ready back for unmet readiness gates", () => {
    const p = pod("Always", ["a"], [], { readinessGates: [{ conditionType: "example.com/gate" }] });
    const conditions = podConditions(p, [states.running!("a")], "Running", true, T);
    expect(conditions.find((c) => c.type === "Ready")).toMatchObject({
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'corresponding condition of pod readiness gate "example.com/gate" does not exist.',
    });
  });
});

describe("pods with sidecars (restartable init containers)", () => {
  const withSidecar = (restartPolicy: string) =>
    podSchema.parse({
      metadata: { name: "p", namespace: "ns", uid: "u" },
      spec: {
        restartPolicy,
        initContainers: [{ name: "log", restartPolicy: "Always" }, { name: "setup" }],
        containers: [{ name: "app" }],
      },
    });
  const unstarted = (name: string) => ({ ...states.running!(name), started: false, ready: false });
  const show = (p: Pod, statuses: ContainerStatus[], phase: "Pending" | "Running" | "Succeeded" | "Failed") =>
    podConditions(p, statuses, phase, true, T)
      .filter((c) => c.type === "Initialized" || c.type === "ContainersReady")
      .map((c) => `${c.type}=${c.status}${c.message ? ` ${c.message}` : ""}`);

  it("stays Pending with the sidecar incomplete until it has started", () => {
    const p = withSidecar("Always");
    const statuses = [unstarted("log"), states.creating!("setup"), states.creating!("app")];
    expect(podPhase(p, statuses, false)).toBe("Pending");
    expect(show(p, statuses, "Pending")).toEqual([
      "Initialized=False containers with incomplete status: [log setup]",
      "ContainersReady=False containers with unready status: [log app]",
    ]);
  });

  it("counts a started sidecar as initialized while it keeps running, and needs it ready", () => {
    const p = withSidecar("Always");
    const statuses = [states.runningUnready!("log"), states.init0!("setup"), states.running!("app")];
    expect(podPhase(p, statuses, false)).toBe("Running");
    expect(show(p, statuses, "Running")).toEqual([
      "Initialized=True",
      "ContainersReady=False containers with unready status: [log]",
    ]);
    statuses[0] = states.running!("log");
    expect(show(p, statuses, "Running")).toEqual(["Initialized=True", "ContainersReady=True"]);
  });

  it.each([
    ["Never", "exited0", "Succeeded"],
    ["OnFailure", "exited0", "Succeeded"],
    ["Never", "exited1", "Failed"],
  ])("under %s a pod whose main container %s ends %s though its sidecar runs", (policy, app, phase) => {
    const statuses = [states.running!("log"), states.init0!("setup"), states[app]!("app")];
    expect(podPhase(withSidecar(policy), statuses, false)).toBe(phase);
  });

  it("does not fail the pod for a sidecar that exited non-zero under restartPolicy Never", () => {
    const statuses = [states.backoff!("log"), states.init0!("setup"), states.running!("app")];
    expect(podPhase(withSidecar("Never"), statuses, false)).toBe("Running");
  });
});

describe("container status", () => {
  it("shows a container waiting to restart with the last exit as lastState", () => {
    const s = states.backoff!("a");
    expect(s).toMatchObject({
      state: { waiting: { reason: "CrashLoopBackOff" } },
      lastState: { terminated: { exitCode: 1, reason: "Error" } },
      containerID: "kvts://x",
      ready: false,
      started: false,
    });
  });
});
