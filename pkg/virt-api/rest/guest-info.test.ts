// guestosinfo, userlist and filesystemlist for real, with no cluster: virt-api's HTTPS server → mutual TLS
// → virt-handler's console server and its guest agent endpoints → a fake launcher answering what an agent
// poller would have read.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import type { GuestAgentInfo } from "../../api/guest-agent-info.js";
import { silentLogger } from "../../controller/index.js";
import { ConsoleServer } from "../../virt-handler/rest/console-server.js";
import { GuestInfoHandler } from "../../virt-handler/rest/guest-info.js";
import { GuestInfoProxy, validateGuestAgentConnected } from "./guest-info.js";
import {
  startHandlerStack,
  vmiSubresourceRoute as route,
  type HandlerStack,
} from "./testing/handler-stack.js";

const AGENT_CONNECTED = { type: "AgentConnected", status: "True" };

const vmi = (status: VirtualMachineInstance["status"]): VirtualMachineInstance => ({
  metadata: { name: "testvmi", namespace: "default", uid: "7d0e1f2a-aaaa" },
  spec: { domain: { devices: {} } },
  status: { nodeName: "node01", ...status },
});

const guestInfo: GuestAgentInfo = {
  guestAgentVersion: "7.2.0",
  supportedCommands: [{ name: "guest-ping", enabled: true }],
  hostname: "testvmi",
  os: { name: "Debian GNU/Linux", versionId: "12", id: "debian" },
  timezone: "UTC, 0",
  userList: [{ userName: "root", loginTime: 1_700_000_000.5 }],
  fsInfo: {
    disks: [
      {
        diskName: "vda1",
        mountPoint: "/",
        fileSystemType: "ext4",
        usedBytes: 5_368_709_120,
        totalBytes: 10_737_418_240,
        disk: [{ serial: "containerdisk", busType: "virtio" }],
      },
    ],
  },
  fsFreezeStatus: "",
};

describe("upstream's checks before virt-handler is asked", () => {
  const conflictOn = (why: string) =>
    `Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": ${why}`;
  it.each([
    ["running with the agent connected", vmi({ phase: "Running", conditions: [AGENT_CONNECTED] }), undefined],
    [
      "running, the condition False (upstream looks at its presence only)",
      vmi({ phase: "Running", conditions: [{ type: "AgentConnected", status: "False" }] }),
      undefined,
    ],
    [
      "running without the agent",
      vmi({ phase: "Running" }),
      conflictOn("VMI does not have guest agent connected"),
    ],
    [
      "scheduled",
      vmi({ phase: "Scheduled", conditions: [AGENT_CONNECTED] }),
      conflictOn("VMI is not running"),
    ],
  ] as const)("%s", (_case, input, message) => {
    expect(validateGuestAgentConnected(input)?.message).toBe(message);
  });
});

let stack: HandlerStack;
let portOverride: number | undefined;
let launcherFails: Error | undefined;
const apiVMIs = new Map<string, VirtualMachineInstance>();
const handlerVMIs = new Map<string, VirtualMachineInstance>();

beforeAll(async () => {
  const launcher = {
    getGuestInfo: async () => {
      if (launcherFails) throw launcherFails;
      return guestInfo;
    },
    getUsers: async () => ({ items: guestInfo.userList ?? null }),
    getFilesystems: async () => ({ items: guestInfo.fsInfo?.disks ?? null }),
  };
  stack = await startHandlerStack({
    startHandler: async ({ certFile, keyFile, clientCA }) => {
      const server = new ConsoleServer({
        bindAddress: "127.0.0.1",
        port: 0,
        certFile,
        keyFile,
        clientCA: { current: () => clientCA, onChange: () => () => undefined },
        handler: { handleUpgrade: async () => undefined, endAll: () => undefined },
        guestInfo: new GuestInfoHandler({
          getVMI: (key) => handlerVMIs.get(key),
          launcher: async () => launcher,
          logger: silentLogger,
        }),
        logger: silentLogger,
      });
      return { port: await server.start(), stop: () => server.stop() };
    },
    api: (s) => ({
      // The port may be overridden per test: a proxy is made per request.
      guestInfo: {
        handle: (subresource, namespace, name) =>
          new GuestInfoProxy(
            {
              getVMI: async (_namespace, vmiName) => apiVMIs.get(vmiName),
              handlerPods: async () => [{ podIP: "127.0.0.1" }],
              handlerTLS: async () => s.handlerTLS,
            },
            { consoleServerPort: portOverride ?? s.handlerPort, timeoutMs: 500 },
          ).handle(subresource, namespace, name),
      },
    }),
  });
});

afterAll(async () => {
  await stack?.stop();
});

beforeEach(() => {
  stack.allow = true;
  portOverride = undefined;
  launcherFails = undefined;
  const running = vmi({ phase: "Running", conditions: [AGENT_CONNECTED] });
  apiVMIs.set("testvmi", running);
  handlerVMIs.set("default/testvmi", running);
});

describe("GET .../virtualmachineinstances/{name}/guestosinfo|userlist|filesystemlist", () => {
  it.each(["v1", "v1alpha3"])(
    "%s: guestosinfo is the launcher's guest info, in Go's field order",
    async (version) => {
      const answer = await stack.call("GET", route("guestosinfo", version));
      expect(answer.code).toBe(200);
      expect(answer.type).toMatch(/^application\/json/);
      expect(Object.keys(JSON.parse(answer.body))).toEqual([
        "guestAgentVersion",
        "supportedCommands",
        "hostname",
        "os",
        "timezone",
        "userList",
        "fsInfo",
      ]);
      expect(JSON.parse(answer.body)).toMatchObject({ hostname: "testvmi", os: { id: "debian" } });
    },
  );

  it("userlist and filesystemlist are lists with an empty metadata", async () => {
    const users = await stack.call("GET", route("userlist"));
    expect(JSON.parse(users.body)).toEqual({
      metadata: {},
      items: [{ userName: "root", loginTime: 1_700_000_000.5 }],
    });
    const filesystems = await stack.call("GET", route("filesystemlist", "v1alpha3"));
    expect(JSON.parse(filesystems.body)).toEqual({ metadata: {}, items: guestInfo.fsInfo?.disks });
  });

  it.each([
    [
      "a VMI without the agent",
      () => apiVMIs.set("testvmi", vmi({ phase: "Running" })),
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI does not have guest agent connected',
    ],
    [
      "a VMI that is not running",
      () => apiVMIs.set("testvmi", vmi({ phase: "Scheduled", conditions: [AGENT_CONNECTED] })),
      'Operation cannot be fulfilled on virtualmachineinstance.kubevirt.io "testvmi": VMI is not running',
    ],
    ["a missing VMI", () => apiVMIs.clear(), 'virtualmachineinstance.kubevirt.io "testvmi" not found'],
    [
      "a launcher failure, as virt-handler answered it",
      () => (launcherFails = new Error("command GetGuestInfo failed with an error: connection refused")),
      "unexpected return code 500 (500 Internal Server Error), message: command GetGuestInfo failed with an error: connection refused",
    ],
    [
      "a VMI virt-handler does not know",
      () => handlerVMIs.clear(),
      "unexpected return code 404 (404 Not Found), message: VMI default/testvmi does not exist",
    ],
  ])("%s is a 500 with the error's text, as upstream's WriteError", async (_case, arrange, text) => {
    arrange();
    const answer = await stack.call("GET", route("guestosinfo"));
    expect(answer).toEqual({ code: 500, body: text, type: "text/plain; charset=utf-8" });
  });

  it("a handler that never answers is cut off by the deadline", async () => {
    portOverride = stack.silentPort;
    const started = Date.now();
    const answer = await stack.call("GET", route("userlist"));
    expect(answer.code).toBe(500);
    expect(answer.body).toBe(`dial tcp 127.0.0.1:${stack.silentPort}: i/o timeout`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("the access review's refusal is Forbidden before any check", async () => {
    stack.allow = false;
    const answer = await stack.call("GET", route("guestosinfo"));
    expect(answer.code).toBe(403);
  });

  it("discovery lists the three, as they are registered", async () => {
    for (const version of ["v1", "v1alpha3"]) {
      const answer = await stack.call("GET", `/apis/subresources.kubevirt.io/${version}`);
      const names = (JSON.parse(answer.body) as { resources: { name: string }[] }).resources.map(
        (r) => r.name,
      );
      expect(names.filter((name) => /guestosinfo|userlist|filesystemlist/.test(name))).toEqual([
        "virtualmachineinstances/guestosinfo",
        "virtualmachineinstances/userlist",
        "virtualmachineinstances/filesystemlist",
      ]);
    }
  });
});
