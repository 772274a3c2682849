import { z } from "zod";

// What the single-client DHCP server needs, as one JSON document: the launcher builds it from the
// cached interface config and the pod's resolv.conf, and it crosses into a child process when the
// server runs from outside the pod's network namespace.

const ipv4 = z.ipv4();
const mac = z.string().regex(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i, "a MAC address like 02:00:00:aa:bb:cc");

export const DhcpServerConfigSchema = z.object({
  /** The bridge the guest's tap is on; replies leave through it. */
  serverInterface: z.string().min(1),
  /** The bridge's own address: the DHCP server identifier and the replies' source. */
  serverIP: ipv4,
  /** Only this client is answered. */
  clientMAC: mac,
  clientIP: ipv4,
  clientPrefixLength: z.number().int().min(0).max(32),
  routerIP: ipv4.optional(),
  dnsServers: z.array(ipv4),
  searchDomains: z.array(z.string()),
  routes: z.array(z.object({ destination: z.string(), gateway: ipv4.optional() })).optional(),
  mtu: z.number().int().min(68).max(65535),
  hostname: z.string().min(1),
  dhcpOptions: z
    .object({
      bootFileName: z.string().optional(),
      tftpServerName: z.string().optional(),
      ntpServers: z.array(z.string()).optional(),
      privateOptions: z.array(z.object({ option: z.number().int(), value: z.string() })).optional(),
    })
    .optional(),
});

export type DhcpServerConfig = z.infer<typeof DhcpServerConfigSchema>;
