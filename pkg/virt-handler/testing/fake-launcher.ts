// A stand-in for virt-launcher's Cmd server on a real unix socket, for virt-handler tests: it defines a
// running domain on SyncVirtualMachine, marks it shut off on Shutdown/Kill, and records every call.
import { addCmdService } from "../../handler-launcher-com/cmd/v1/server.js";
import { CMD_METHOD_NAMES, type CmdMethods } from "../../handler-launcher-com/cmd/v1/messages.js";
import type { UnaryHandlers } from "../../handler-launcher-com/grpc-unix.js";
import { serveOnTempSocket, type SocketServer } from "../../handler-launcher-com/testing.js";
import type { DomainObject } from "../../virt-launcher/virtwrap/api/domain-object.js";
import { domainToJSON } from "../../virt-launcher/virtwrap/api/domain-json.js";

const ok = { success: true, message: "" };

export class FakeLauncherServer {
  readonly calls: string[] = [];
  domain: DomainObject | undefined;
  private server: SocketServer | undefined;

  async start(socketPath: string): Promise<void> {
    const unexpected = Object.fromEntries(
      CMD_METHOD_NAMES.map((name) => [name, () => Promise.reject(new Error(`unexpected call ${name}`))]),
    ) as unknown as UnaryHandlers<CmdMethods>;
    const handlers: UnaryHandlers<CmdMethods> = {
      ...unexpected,
      SyncVirtualMachine: async ({ vmi }) => {
        const parsed = JSON.parse(vmi?.vmiJson.toString() ?? "{}") as {
          metadata?: { name?: string; namespace?: string };
        };
        this.calls.push(`SyncVirtualMachine ${parsed.metadata?.namespace}/${parsed.metadata?.name}`);
        this.domain ??= runningDomain(parsed.metadata?.namespace ?? "", parsed.metadata?.name ?? "");
        return ok;
      },
      ShutdownVirtualMachine: async () => this.stop("ShutdownVirtualMachine", "Shutdown"),
      KillVirtualMachine: async () => this.stop("KillVirtualMachine", "Destroyed"),
      GetDomain: async () => ({ response: ok, domain: this.domain ? domainToJSON(this.domain) : "" }),
    };
    this.server = await serveOnTempSocket("launcher-sock", (s) => addCmdService(s, handlers), socketPath);
  }

  async stopServer(): Promise<void> {
    await this.server?.stop();
  }

  private stop(call: string, reason: "Shutdown" | "Destroyed") {
    this.calls.push(call);
    if (this.domain) this.domain = { ...this.domain, status: { status: "Shutoff", reason } };
    return Promise.resolve(ok);
  }
}

function runningDomain(namespace: string, name: string): DomainObject {
  return {
    objectMeta: { name: `${namespace}_${name}`, namespace },
    spec: {
      type: "kvm",
      name: `${namespace}_${name}`,
      devices: {
        interfaces: [
          {
            type: "ethernet",
            mac: { mac: "02:00:00:aa:bb:cc" },
            alias: { name: "default", userDefined: true },
          },
        ],
      },
    },
    status: {
      status: "Running",
      reason: "Unknown",
      interfaces: [{ mac: "02:00:00:aa:bb:cc", ip: "10.0.2.2", ips: ["10.0.2.2"], interfaceName: "eth0" }],
    },
  } as unknown as DomainObject;
}
