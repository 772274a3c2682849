// The portforward subresource of a VMI, and of a VM through its VMI (upstream pkg/virt-api/rest/
// portforward.go and dialers.go netDial): virt-api itself dials the port at the VMI's first interface IP
// (the pod IP, which masquerade forwards to the guest, or the guest's own address with bridge binding),
// over tcp or udp, and streams it to the client's WebSocket as binary messages (upstream's
// NewWebsocketStreamer: pkg/util/websocket-stream.ts, virt-api pinging the client every second).
// Refusals before the upgrade are Statuses; the dial has a deadline.
import { createSocket } from "node:dgram";
import type { IncomingMessage } from "node:http";
import net from "node:net";
import { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { VirtualMachineInstance } from "../../api/generated/v1.js";
import { hasCondition } from "../../controller/conditions.js";
import { dialErrorMessage, type Result } from "./dialers.js";
import { fetchVMI, fetchVMIForVM, type LifecycleClient } from "./subresource-app.js";
import {
  badRequest,
  conflict,
  internalError,
  virtualMachineInstanceResource,
  type Status,
} from "./status.js";
import type { StreamRoute } from "./stream-route.js";
import { clientHandshakeError, PLAIN_STREAM_PROTOCOL, writeStatus } from "./streamer.js";
import { DEFAULT_KEEPALIVE, streamMessages, type KeepAlive } from "../../util/websocket-stream.js";

export const NO_NETWORK_INTERFACES = "no network interfaces are present";

export type PortForwardBackend = Pick<LifecycleClient, "getVM" | "getVMI">;

export interface PortForwardOptions {
  /** The deadline of the connection to the guest. */
  dialTimeoutMs?: number;
  keepAlive?: KeepAlive;
  logError?: (message: string, error?: unknown) => void;
}

export interface GuestAddress {
  protocol: "tcp" | "udp";
  host: string;
  port: number;
}

/** Upstream's validateVMIForPortForward: only a paused VMI is refused. */
export function validateVMIForPortForward(vmi: VirtualMachineInstance): Status | undefined {
  if (hasCondition(vmi.status, "Paused"))
    return conflict(virtualMachineInstanceResource, vmi.metadata?.name ?? "", "VMI is paused");
  return undefined;
}

/**
 * Where to dial: the first interface's IP, the port and protocol of the path (tcp by default). What Go's
 * net.Dial would refuse is refused in its words.
 */
export function guestAddress(
  vmi: VirtualMachineInstance,
  port: string,
  protocol = "tcp",
): Result<GuestAddress> {
  const [first] = vmi.status?.interfaces ?? [];
  if (!first) return { ok: false, status: badRequest(NO_NETWORK_INTERFACES) };
  // Upstream would dial ":port", virt-api's own host; an interface without an address is not there yet.
  if (!first.ipAddress)
    return { ok: false, status: badRequest(`interface ${first.name ?? ""} has no IP address yet`) };
  if (port === "") return { ok: false, status: badRequest("port must not be empty") };
  const dialing = (why: string) => ({
    ok: false as const,
    status: internalError(`dialing VM: dial ${protocol}: ${why}`),
  });
  if (protocol !== "tcp" && protocol !== "udp") return dialing(`unknown network ${protocol}`);
  if (!/^\d+$/.test(port)) return dialing(`lookup ${protocol}/${port}: unknown port`);
  const number = Number(port);
  if (number > 65535) return dialing(`address ${port}: invalid port`);
  return { ok: true, value: { protocol, host: first.ipAddress, port: number } };
}

const hostPort = (address: GuestAddress) =>
  net.isIPv6(address.host) ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;

/** Connects to the guest; udp is a connected socket whose writes and reads are whole datagrams. */
export function dialGuest(address: GuestAddress, timeoutMs: number): Promise<Result<Duplex>> {
  const refused = (error: NodeJS.ErrnoException): Result<Duplex> => ({
    ok: false,
    status: internalError(
      `dialing VM: ${dialErrorMessage(hostPort(address), error).replace(/^dial tcp /, `dial ${address.protocol} `)}`,
    ),
  });
  return new Promise((resolve) => {
    const connection = address.protocol === "tcp" ? dialTCP(address) : dialUDP(address);
    const timer = setTimeout(() => {
      connection.destroy();
      resolve(refused(Object.assign(new Error("i/o timeout"), { code: "ETIMEDOUT" })));
    }, timeoutMs);
    connection.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      connection.destroy();
      resolve(refused(error));
    });
    connection.once("ready", () => {
      clearTimeout(timer);
      // The error listener stays: a reset before the stream is wired destroys the connection quietly.
      resolve({ ok: true, value: connection });
    });
  });
}

function dialTCP(address: GuestAddress): Duplex {
  return net.connect({ host: address.host, port: address.port });
}

function dialUDP(address: GuestAddress): Duplex {
  const socket = createSocket(net.isIPv6(address.host) ? "udp6" : "udp4");
  const datagrams = new Duplex({
    // One chunk per datagram both ways: reads must not be merged.
    readableObjectMode: true,
    write(chunk: Buffer, _encoding, done) {
      socket.send(chunk, (error) => done(error ?? null));
    },
    read() {},
    destroy(error, done) {
      try {
        socket.close();
      } catch {
        // already closed
      }
      done(error);
    },
  });
  socket.on("message", (message) => datagrams.push(message));
  socket.on("error", (error) => datagrams.destroy(error));
  socket.connect(address.port, address.host, () => datagrams.emit("ready"));
  return datagrams;
}

export class PortForwardProxy {
  private readonly upgrader = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => (offered.has(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : false),
  });

  constructor(
    private readonly backend: PortForwardBackend,
    private readonly options: PortForwardOptions = {},
  ) {}

  /** Serves an authorized upgrade request for a portforward route on its raw socket. */
  async handle(request: IncomingMessage, socket: Duplex, head: Buffer, route: StreamRoute): Promise<void> {
    const notWebSocket = clientHandshakeError(request);
    if (notWebSocket) return writeStatus(socket, badRequest(notWebSocket));
    const guest = await this.dial(route);
    if (!guest.ok) return writeStatus(socket, guest.status);
    if (socket.destroyed) {
      guest.value.destroy();
      return;
    }
    // A handshake the upgrader refuses destroys the socket without calling back.
    socket.once("close", () => guest.value.destroy());
    await new Promise<void>((resolve) => {
      socket.once("close", () => resolve());
      this.upgrader.handleUpgrade(request, socket, head, (client) => {
        void streamMessages(client, guest.value, this.options.keepAlive ?? DEFAULT_KEEPALIVE).then(resolve);
      });
    });
  }

  private async dial(route: StreamRoute): Promise<Result<Duplex>> {
    const vmi =
      route.resource === "virtualmachines"
        ? await fetchVMIForVM(this.backend, route.namespace, route.name)
        : await fetchVMI(this.backend, route.namespace, route.name);
    if ("code" in vmi) return { ok: false, status: vmi };
    const invalid = validateVMIForPortForward(vmi);
    if (invalid) return { ok: false, status: invalid };
    const address = guestAddress(vmi, route.port ?? "", route.protocol);
    if (!address.ok) return address;
    const dialed = await dialGuest(address.value, this.options.dialTimeoutMs ?? 10_000);
    if (!dialed.ok)
      this.options.logError?.(
        `Can't dial ${address.value.protocol} ${hostPort(address.value)}`,
        dialed.status.message,
      );
    return dialed;
  }
}
