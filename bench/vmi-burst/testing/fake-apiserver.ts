// A stand-in for the kube-apiserver's VirtualMachineInstance collection, for running the benchmark's main
// without a cluster: POST creates a VMI (a whole-second creationTimestamp, phase Pending), which then goes
// Scheduled and Running after the delays its name is given, as virt-controller and virt-handler would move
// it; GET lists (with the label selector) or watches (JSON lines). Plain HTTP on 127.0.0.1.
import http from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

export interface VmiScript {
  /** Milliseconds after the creation; undefined: it never gets there. */
  scheduledMs?: number;
  runningMs?: number;
  /** Conditions the VMI shows while it does not run (PodScheduled=False ...). */
  stuckConditions?: Json[];
}

const kubernetesTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export class FakeVmiApiserver {
  readonly requests: string[] = [];
  private readonly vmis = new Map<string, Json>();
  private readonly watchers = new Set<http.ServerResponse>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private resourceVersion = 100;

  private constructor(
    private readonly server: http.Server,
    private readonly script: (name: string) => VmiScript,
  ) {}

  static async start(script: (name: string) => VmiScript): Promise<FakeVmiApiserver> {
    const server = http.createServer();
    const fake = new FakeVmiApiserver(server, script);
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig for this server, without credentials. */
  kubeconfig(): string {
    return [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{ name: fake, cluster: { server: " +
        JSON.stringify(this.url) +
        ", insecure-skip-tls-verify: true } }]",
      "users: [{ name: fake, user: {} }]",
      "contexts: [{ name: fake, context: { cluster: fake, user: fake } }]",
      "current-context: fake",
      "",
    ].join("\n");
  }

  /** A VMI left from an earlier run. */
  seed(vmi: Json): void {
    this.vmis.set(String((vmi.metadata as Json).name), vmi);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const watcher of this.watchers) watcher.end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private emit(type: string, vmi: Json): void {
    for (const watcher of this.watchers) watcher.write(`${JSON.stringify({ type, object: vmi })}\n`);
  }

  private update(name: string, change: (vmi: Json) => void): void {
    const vmi = this.vmis.get(name);
    if (!vmi) return;
    change(vmi);
    (vmi.metadata as Json).resourceVersion = String(++this.resourceVersion);
    this.emit("MODIFIED", vmi);
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private toPhase(name: string, phase: string, conditions?: Json[]): void {
    this.update(name, (vmi) => {
      const status = vmi.status as Json;
      status.phase = phase;
      (status.phaseTransitionTimestamps as Json[]).push({
        phase,
        phaseTransitionTimestamp: kubernetesTime(Date.now()),
      });
      if (conditions) status.conditions = conditions;
    });
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? "/", this.url);
    const watch = url.searchParams.get("watch") === "true";
    this.requests.push(`${req.method} ${url.pathname}${watch ? " watch" : ""}`);
    if (!/^\/apis\/kubevirt\.io\/v1\/namespaces\/[^/]+\/virtualmachineinstances$/.test(url.pathname)) {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "Status", status: "Failure", reason: "NotFound", code: 404 }));
      return;
    }
    if (req.method === "POST") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => this.create(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json, res));
      return;
    }
    const selector = url.searchParams.get("labelSelector") ?? "";
    const [key, value] = selector.split("=");
    const items = [...this.vmis.values()].filter(
      (vmi) => !key || ((vmi.metadata as Json).labels as Record<string, string> | undefined)?.[key] === value,
    );
    res.writeHead(200, { "Content-Type": "application/json" });
    if (!watch) {
      res.end(
        JSON.stringify({ kind: "List", metadata: { resourceVersion: String(this.resourceVersion) }, items }),
      );
      return;
    }
    res.flushHeaders();
    this.watchers.add(res);
    res.on("close", () => this.watchers.delete(res));
  }

  private create(vmi: Json, res: http.ServerResponse): void {
    const metadata = vmi.metadata as Json;
    const name = String(metadata.name);
    if (this.vmis.has(name)) {
      res.writeHead(409, { "Content-Type": "application/json" });
      res.end(
        JSON.stringify({
          kind: "Status",
          reason: "AlreadyExists",
          message: `"${name}" already exists`,
          code: 409,
        }),
      );
      return;
    }
    const now = Date.now();
    metadata.creationTimestamp = kubernetesTime(now);
    metadata.uid = `uid-${name}`;
    metadata.resourceVersion = String(++this.resourceVersion);
    vmi.status = {
      phase: "Pending",
      phaseTransitionTimestamps: [{ phase: "Pending", phaseTransitionTimestamp: kubernetesTime(now) }],
    };
    this.vmis.set(name, vmi);
    this.emit("ADDED", vmi);
    res.writeHead(201, { "Content-Type": "application/json" });
    res.end(JSON.stringify(vmi));
    const script = this.script(name);
    const paused = (vmi.spec as Json).startStrategy === "Paused";
    if (script.scheduledMs !== undefined)
      this.later(script.scheduledMs, () => this.toPhase(name, "Scheduled"));
    if (script.runningMs !== undefined)
      this.later(script.runningMs, () =>
        this.toPhase(
          name,
          "Running",
          paused ? [{ type: "Paused", status: "True", reason: "PausedByUser" }] : [],
        ),
      );
    if (script.stuckConditions)
      this.later(10, () => this.toPhase(name, "Scheduling", script.stuckConditions));
  }
}
