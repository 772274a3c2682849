import { createSocket } from "node:dgram";
import type { RemoteInfo, Socket } from "node:dgram";
import type { Logger } from "../../controller/log.js";
import type { SingleClientLease } from "./handler.js";
import { INFINITE_LEASE_SECONDS, serveDhcp } from "./handler.js";
import { prepareDhcpOptions } from "./options.js";
import { decodeDhcpPacket } from "./packet.js";
import type { DhcpServerConfig } from "./server-config.js";

// The single-client DHCPv4 server of a VM's interface (upstream dhcp/server.SingleClientDHCPServer),
// written here over node:dgram: no maintained JavaScript DHCP server fits (they are either abandoned
// or general lease managers), and the protocol needed is small.
//
// Node cannot bind a socket to a device (SO_BINDTODEVICE) nor pick the outgoing interface per packet
// (IP_PKTINFO), which is how upstream keeps the conversation on the bridge. Instead:
// - requests are read on 0.0.0.0:67 in the pod's network namespace, whose only other link is the
//   pod interface; the MAC filter drops anyone but the VM;
// - replies go from a second socket bound to the bridge's own address: the kernel sends a limited
//   broadcast from a socket bound to an interface's address out of that interface. Replies are
//   always broadcast: before its lease the guest cannot answer ARP, and with the bridge binding the
//   guest's address is also a local address of the pod (kept on the placeholder eth0), so a unicast
//   reply would never leave the namespace.

const SERVER_PORT = 67;
const LIMITED_BROADCAST = "255.255.255.255";

export interface DhcpServer {
  close(): Promise<void>;
}

export function leaseFromConfig(config: DhcpServerConfig): SingleClientLease {
  return {
    clientMAC: Buffer.from(config.clientMAC.split(":").map((octet) => parseInt(octet, 16))),
    clientIP: config.clientIP,
    serverIP: config.serverIP,
    leaseSeconds: INFINITE_LEASE_SECONDS,
    options: prepareDhcpOptions({
      clientPrefixLength: config.clientPrefixLength,
      routerIP: config.routerIP,
      dnsServers: config.dnsServers,
      routes: config.routes,
      searchDomains: config.searchDomains,
      mtu: config.mtu,
      hostname: config.hostname,
      custom: config.dhcpOptions,
    }),
  };
}

/** Starts serving; resolves once both sockets are bound. Must run inside the pod's network namespace. */
export async function startSingleClientDhcpServer(
  config: DhcpServerConfig,
  log: Logger,
): Promise<DhcpServer> {
  const lease = leaseFromConfig(config);
  const listener = await bindUdp4("0.0.0.0");
  let replier: Socket;
  try {
    replier = await bindUdp4(config.serverIP);
  } catch (error) {
    await closeSocket(listener);
    throw error;
  }
  replier.setBroadcast(true);

  const onMessage = (datagram: Buffer, remote: RemoteInfo): void => {
    const request = decodeDhcpPacket(datagram);
    if (!request) return;
    const reply = serveDhcp(request, lease);
    if (!reply) return;
    // The client's source port, as upstream's server answers; 68 for any real client.
    replier.send(reply, remote.port, LIMITED_BROADCAST, (error) => {
      if (error) log.warn({ err: error }, "failed to send a DHCP reply");
    });
  };
  // Unicast requests to the server's own address (renewals) reach the more specific socket.
  for (const socket of [listener, replier]) {
    socket.on("message", onMessage);
    socket.on("error", (error) => log.error({ err: error }, "DHCP server socket failed"));
  }
  log.info(
    { interface: config.serverInterface, clientMAC: config.clientMAC },
    "Starting SingleClientDHCPServer",
  );
  return {
    close: async () => {
      await Promise.all([closeSocket(listener), closeSocket(replier)]);
    },
  };
}

function bindUdp4(address: string): Promise<Socket> {
  const socket = createSocket({ type: "udp4", reuseAddr: true });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind({ address, port: SERVER_PORT }, () => {
      socket.off("error", reject);
      resolve(socket);
    });
  });
}

function closeSocket(socket: Socket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}
