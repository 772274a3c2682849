// The VMI subresources that go to virt-handler, for real and with no cluster: virt-api's HTTPS server
// (front-proxy authentication and a SubjectAccessReview stand-in) → mutual TLS → virt-handler's console
// server and its lifecycle endpoints → a fake launcher that records the Cmd calls, on the stack of
// handler-stack.ts. `useHandlerPutFixture(startHandler)` registers the hooks and answers the state to
// script; the test passes virt-handler's side in (virt-handler's rest/testing/lifecycle-server.ts), since
// only a test may reach into another component.
import { afterAll, beforeAll, beforeEach } from "vitest";
import type { VirtualMachine, VirtualMachineInstance } from "../../../api/generated/v1.js";
import { HandlerPutProxy, type HandlerPutBackend } from "../handler-put.js";
import { VMI_HANDLER_VERBS } from "../vmi-lifecycle.js";
import {
  startHandlerStack,
  vmiSubresourceRoute,
  type HandlerCertificates,
  type HandlerStack,
} from "./handler-stack.js";

export const testVMI = (
  status: VirtualMachineInstance["status"],
  spec: Partial<VirtualMachineInstance["spec"]> = {},
): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} }, ...spec },
  status: { nodeName: "node01", ...status },
});

/** The handler-side calls of the fake launcher, as LifecycleLauncher has them. */
export interface RecordingLauncher {
  pauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  unpauseVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  freezeVirtualMachine(vmi: VirtualMachineInstance, unfreezeTimeoutSeconds: number): Promise<void>;
  unfreezeVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  softRebootVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
  resetVirtualMachine(vmi: VirtualMachineInstance): Promise<void>;
}

/** virt-handler's side: its lifecycle endpoints over the given VMIs and launcher, with these certificates. */
export type StartHandler = (
  options: {
    getVMI(key: string): VirtualMachineInstance | undefined;
    launcher(vmi: VirtualMachineInstance): Promise<RecordingLauncher>;
    recordEvent(
      vmi: VirtualMachineInstance,
      reason: string,
      message: string,
      type?: "Normal" | "Warning",
    ): void;
  },
  certificates: HandlerCertificates,
) => Promise<{ port: number; stop(): Promise<void> }>;

export interface HandlerPutFixture {
  /** Whether the access review allows the call. */
  allow: boolean;
  /** What every launcher command throws, if set. */
  launcherFails: Error | undefined;
  handlerPodIP: string;
  /** Another port to dial instead of the handler's (one that never answers: `silentPort`). */
  portOverride: number | undefined;
  readonly silentPort: number;
  readonly launcherCalls: string[];
  readonly events: string[];
  /** The VMIs virt-api reads from the apiserver, by name, and those in the handler's cache, by key. */
  readonly apiVMIs: Map<string, VirtualMachineInstance>;
  readonly handlerVMIs: Map<string, VirtualMachineInstance>;
  readonly apiVMs: Map<string, VirtualMachine>;
  call(method: string, urlPath: string, body?: string): Promise<{ code: number; body: string }>;
}

/** The subresource URL of a VMI as the aggregator forwards it. */
export const route = vmiSubresourceRoute;
export const messageOf = (body: string) => (JSON.parse(body) as { message?: string }).message;

export function useHandlerPutFixture(startHandler: StartHandler): HandlerPutFixture {
  let stack: HandlerStack | undefined;
  const started = () => {
    if (!stack) throw new Error("the handler stack has not started");
    return stack;
  };
  const fixture: HandlerPutFixture = {
    get allow() {
      return started().allow;
    },
    set allow(allowed: boolean) {
      started().allow = allowed;
    },
    launcherFails: undefined,
    handlerPodIP: "127.0.0.1",
    portOverride: undefined,
    get silentPort() {
      return started().silentPort;
    },
    launcherCalls: [],
    events: [],
    apiVMIs: new Map(),
    handlerVMIs: new Map(),
    apiVMs: new Map(),
    call: async (method, urlPath, body) => {
      const { code, body: text } = await started().call(method, urlPath, body);
      return { code, body: text };
    },
  };

  const recorded =
    (command: string) =>
    async (target: VirtualMachineInstance, ...args: unknown[]): Promise<void> => {
      if (fixture.launcherFails) throw fixture.launcherFails;
      fixture.launcherCalls.push([command, target.metadata?.name, ...args].join(" "));
    };
  const launcher: RecordingLauncher = {
    pauseVirtualMachine: recorded("Pause"),
    unpauseVirtualMachine: recorded("Unpause"),
    freezeVirtualMachine: recorded("Freeze"),
    unfreezeVirtualMachine: recorded("Unfreeze"),
    softRebootVirtualMachine: recorded("SoftReboot"),
    resetVirtualMachine: recorded("Reset"),
  };

  beforeAll(async () => {
    stack = await startHandlerStack({
      startHandler: (certificates) =>
        startHandler(
          {
            getVMI: (key) => fixture.handlerVMIs.get(key),
            launcher: async () => launcher,
            recordEvent: (_vmi, reason, message, type = "Normal") =>
              fixture.events.push(`${type === "Normal" ? "" : `${type} `}${reason}: ${message}`),
          },
          certificates,
        ),
      api: (running) => {
        const backend: HandlerPutBackend = {
          getVM: async (_namespace, name) => fixture.apiVMs.get(name),
          getVMI: async (_namespace, name) => fixture.apiVMIs.get(name),
          handlerPods: async () => [{ podIP: fixture.handlerPodIP }],
          handlerTLS: async () => running.handlerTLS,
        };
        // A test may swap the handler's port (for one that never answers): a proxy is made per request.
        const proxy = () =>
          new HandlerPutProxy(backend, VMI_HANDLER_VERBS, {
            consoleServerPort: fixture.portOverride ?? running.handlerPort,
            timeoutMs: 500,
          });
        return {
          vmiHandlerPut: {
            verbs: proxy().verbs,
            handle: (verb, namespace, name, body) => proxy().handle(verb, namespace, name, body),
          },
        };
      },
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  beforeEach(() => {
    fixture.allow = true;
    fixture.launcherFails = undefined;
    fixture.handlerPodIP = "127.0.0.1";
    fixture.portOverride = undefined;
    fixture.launcherCalls.length = 0;
    fixture.events.length = 0;
    fixture.apiVMs.clear();
    fixture.apiVMIs.clear();
    fixture.handlerVMIs.clear();
    const running = testVMI({ phase: "Running" });
    fixture.apiVMIs.set("testvmi", running);
    fixture.handlerVMIs.set("default/testvmi", running);
  });

  return fixture;
}
