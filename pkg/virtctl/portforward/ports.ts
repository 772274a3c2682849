// The port arguments of virtctl port-forward (upstream pkg/virtctl/portforward/ports.go):
// [protocol/]localPort[:targetPort], tcp by default, the target port the local one when not given.

export const PROTOCOL_TCP = "tcp";
export const PROTOCOL_UDP = "udp";

export interface ForwardedPort {
  local: number;
  remote: number;
  protocol: string;
}

/** strconv.Atoi, with its error text. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text))
    throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number.parseInt(text, 10);
}

export function parsePort(arg: string): ForwardedPort {
  let protocol = PROTOCOL_TCP;
  let rest = arg;
  const parts = arg.split("/");
  if (parts.length > 1) {
    protocol = parts[0] ?? "";
    rest = parts[1] ?? "";
  }
  // strings.FieldsFunc on ':': empty fields are dropped.
  const ports = rest.split(":").filter((field) => field !== "");
  if (ports.length < 1) throw new Error("invalid port, missing local and/or remote port");
  const local = atoi(ports[0] ?? "");
  const remote = ports.length > 1 ? atoi(ports[1] ?? "") : local;
  return { local, remote, protocol };
}

export function parsePorts(args: readonly string[]): ForwardedPort[] {
  return args.map(parsePort);
}
