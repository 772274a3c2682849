// virtctl expose (upstream pkg/virtctl/expose): a Service for a VMI, VM or VMI replica set. VMs and VMIs
// are selected by the launcher Pod's `vmi.kubevirt.io/id` label, a replica set by its matchLabels; the
// ports come from --port or from the pod network interface's declared ports.
import type { VirtualMachineInstanceSpec } from "../../api/generated/v1.js";
import type {
  IPFamily,
  IPFamilyPolicy,
  Service,
  ServicePort,
  ServiceProtocol,
  ServiceType,
} from "../../api/core/v1/service.js";
import { virtualMachineInstanceID } from "../../apimachinery/labels.js";
import { VirtualMachineInstanceIDLabel } from "../../util/constants.js";
import { errorMessage } from "../../util/error-message.js";
import type { Command, CommandContext } from "../command.js";
import type { FlagSpec } from "../flags.js";
import { helpFlag } from "../flags.js";

const LONG = `Looks up a virtual machine instance, virtual machine or virtual machine instance replica set by name and use its selector as the selector for a new service on the specified port.
A virtual machine instance replica set will be exposed as a service only if its selector is convertible to a selector that service supports, i.e. when the selector contains only the matchLabels component.
Note that if no port is specified via --port and the exposed resource has multiple ports, all will be re-used by the new service.
Also if no labels are specified, the new service will re-use the labels from the resource it exposes.

Possible types are (case insensitive, both single and plurant forms):

virtualmachineinstance (vmi), virtualmachine (vm), virtualmachineinstancereplicaset (vmirs)`;

const EXAMPLE = `  # Expose SSH to a virtual machine instance called 'myvm' on each node via a NodePort service:
  {{ProgramName}} expose vmi myvm --port=22 --name=myvm-ssh --type=NodePort

  # Expose all defined pod-network ports of a virtual machine instance replicaset on a service:
  {{ProgramName}} expose vmirs myvmirs --name=vmirs-service

  # Expose port 8080 as port 80 from a virtual machine instance replicaset on a service:
  {{ProgramName}} expose vmirs myvmirs --port=80 --target-port=8080 --name=vmirs-service`;

const stringFlag = (name: string, usage: string, defaultValue = ""): FlagSpec => ({
  name,
  kind: "string",
  defaultValue,
  usage,
});

const FLAGS: FlagSpec[] = [
  stringFlag("name", "Name of the service created for the exposure of the VM."),
  stringFlag(
    "cluster-ip",
    "ClusterIP to be assigned to the service. Leave empty to auto-allocate, or set to 'None' to create a headless service.",
  ),
  stringFlag(
    "external-ip",
    "Additional external IP address (not managed by the cluster) to accept for the service. If this IP is routed to a node, the service can be accessed by this IP in addition to its generated service IP. Optional.",
  ),
  { name: "port", kind: "int", defaultValue: 0, usage: "The port that the service should serve on." },
  stringFlag("protocol", "The network protocol for the service to be created.", "TCP"),
  stringFlag(
    "target-port",
    "Name or number for the port on the VM that the service should direct traffic to. Optional.",
  ),
  stringFlag("type", "Type for this service: ClusterIP, NodePort, or LoadBalancer.", "ClusterIP"),
  stringFlag("port-name", "Name of the port. Optional."),
  stringFlag(
    "ip-family",
    "IP family over which the service will be exposed. Valid values are 'IPv4', 'IPv6', 'IPv4,IPv6' or 'IPv6,IPv4'",
  ),
  stringFlag(
    "ip-family-policy",
    "IP family policy defines whether the service can use IPv4, IPv6, or both. Valid values are 'SingleStack', 'PreferDualStack' or 'RequireDualStack'",
  ),
  helpFlag("expose"),
];

/** `value` matched case-insensitively against `choices`; undefined when none matches. */
const pick = <T extends string>(value: string, choices: readonly T[]): T | undefined =>
  choices.find((choice) => choice.toLowerCase() === value.toLowerCase());

function protocolOf(value: string): ServiceProtocol {
  const protocol = pick(value, ["TCP", "UDP"] as const);
  if (!protocol) throw new Error(`unknown protocol: ${value}`);
  return protocol;
}

function serviceTypeOf(value: string): ServiceType {
  if (value.toLowerCase() === "externalname") throw new Error(`type: ${value} not supported`);
  const type = pick(value, ["ClusterIP", "NodePort", "LoadBalancer"] as const);
  if (!type) throw new Error(`unknown service type: ${value}`);
  return type;
}

function ipFamiliesOf(value: string): IPFamily[] {
  if (value === "") return [];
  const families = pick(value, ["IPv4", "IPv6", "IPv4,IPv6", "IPv6,IPv4"] as const);
  if (!families) throw new Error(`unknown IPFamily/s: ${value}`);
  return families.split(",") as IPFamily[];
}

function ipFamilyPolicyOf(value: string, families: IPFamily[]): IPFamilyPolicy | undefined {
  if (value === "") return families.length > 1 ? "PreferDualStack" : undefined;
  const policy = pick(value, ["SingleStack", "PreferDualStack", "RequireDualStack"] as const);
  if (!policy) throw new Error(`unknown IPFamilyPolicy/s: ${value}`);
  return policy;
}

/** intstr.Parse: a number when the text is one, else the port's name. */
const intOrString = (value: string): number | string => (/^-?\d+$/.test(value) ? Number(value) : value);

/** The ports declared on the interface bound to the pod network, named port-1, port-2 ... */
export function podNetworkPorts(spec: VirtualMachineInstanceSpec | undefined): ServicePort[] {
  const podNetwork = spec?.networks?.find((network) => network.pod !== undefined)?.name;
  if (podNetwork === undefined) return [];
  const iface = spec?.domain.devices.interfaces?.find((candidate) => candidate.name === podNetwork);
  return (iface?.ports ?? []).map((port, index) => ({
    name: `port-${index + 1}`,
    ...(port.protocol ? { protocol: port.protocol as ServiceProtocol } : {}),
    port: port.port,
  }));
}

interface Exposed {
  selector: Record<string, string>;
  ports: ServicePort[];
}

interface TemplateOwner {
  metadata?: { name?: string };
  spec?: {
    template?: { spec?: VirtualMachineInstanceSpec };
    selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
  } & Partial<VirtualMachineInstanceSpec>;
}

const KINDS = [
  { aliases: ["vmi", "vmis", "virtualmachineinstance", "virtualmachineinstances"], resource: "virtualmachineinstances", kind: "VirtualMachineInstance" },
  { aliases: ["vm", "vms", "virtualmachine", "virtualmachines"], resource: "virtualmachines", kind: "VirtualMachine" },
  { aliases: ["vmirs", "vmirss", "virtualmachineinstancereplicaset", "virtualmachineinstancereplicasets"], resource: "virtualmachineinstancereplicasets", kind: "VirtualMachineInstanceReplicaSet" },
] as const; // prettier-ignore

/** The selector and introspected ports of what is exposed. */
export function exposedBy(kind: (typeof KINDS)[number]["kind"], object: TemplateOwner): Exposed {
  const name = object.metadata?.name ?? "";
  if (kind === "VirtualMachineInstance") {
    return {
      selector: { [VirtualMachineInstanceIDLabel]: virtualMachineInstanceID(name) },
      ports: podNetworkPorts(object.spec as VirtualMachineInstanceSpec),
    };
  }
  const ports = podNetworkPorts(object.spec?.template?.spec);
  if (kind === "VirtualMachine") {
    return { selector: { [VirtualMachineInstanceIDLabel]: virtualMachineInstanceID(name) }, ports };
  }
  const selector = object.spec?.selector;
  if (!selector?.matchLabels || Object.keys(selector.matchLabels).length === 0) {
    throw new Error("cannot expose VirtualMachineInstanceReplicaSet without any selector labels");
  }
  if ((selector.matchExpressions ?? []).length > 0) {
    throw new Error("cannot expose VirtualMachineInstanceReplicaSet with match expressions");
  }
  return { selector: selector.matchLabels, ports };
}

async function run(context: CommandContext): Promise<void> {
  const [typeArg = "", name = ""] = context.args;
  const { flags } = context;
  const serviceName = flags.string("name");
  if (!flags.changed.has("name")) throw new Error('required flag(s) "name" not set');
  const targetPort = flags.string("target-port");
  const protocol = protocolOf(flags.string("protocol"));
  const type = serviceTypeOf(flags.string("type"));
  const ipFamilies = ipFamiliesOf(flags.string("ip-family"));
  const ipFamilyPolicy = ipFamilyPolicyOf(flags.string("ip-family-policy"), ipFamilies);
  const { client } = await context.client();
  const kind = KINDS.find((candidate) =>
    (candidate.aliases as readonly string[]).includes(typeArg.toLowerCase()),
  );
  if (!kind) throw new Error(`unsupported resource type: ${typeArg.toLowerCase()}`);
  let object: TemplateOwner;
  try {
    object = (await client.getJson(
      client.namespacedPath("kubevirt.io/v1", kind.resource, name),
    )) as TemplateOwner;
  } catch (error) {
    throw new Error(`error fetching ${kind.kind}: ${errorMessage(error)}`);
  }
  const exposed = exposedBy(kind.kind, object);
  const port = flags.int("port");
  const ports: ServicePort[] =
    port !== 0
      ? [
          {
            ...(flags.string("port-name") ? { name: flags.string("port-name") } : {}),
            protocol,
            port,
            ...(targetPort !== "" ? { targetPort: intOrString(targetPort) } : {}),
          },
        ]
      : exposed.ports;
  if (ports.length === 0) throw new Error("couldn't find port via --port flag or introspection");
  const externalIP = flags.string("external-ip");
  const clusterIP = flags.string("cluster-ip");
  const service: Service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: serviceName, namespace: client.namespace },
    spec: {
      ports,
      selector: exposed.selector,
      type,
      ...(clusterIP ? { clusterIP } : {}),
      ...(ipFamilies.length > 0 ? { ipFamilies } : {}),
      ...(ipFamilyPolicy ? { ipFamilyPolicy } : {}),
      ...(externalIP ? { externalIPs: [externalIP] } : {}),
    },
  };
  try {
    await client.post(client.namespacedPath("v1", "services"), service);
  } catch (error) {
    throw new Error(`service creation failed: ${errorMessage(error)}`);
  }
  context.io.stdout.write(
    `Service ${serviceName} successfully created for ${typeArg.toLowerCase()} ${name}\n`,
  );
}

export const exposeCommand: Command = {
  name: "expose",
  use: "expose (TYPE NAME)",
  short:
    "Expose a virtual machine instance, virtual machine, or virtual machine instance replica set as a new service.",
  long: LONG,
  example: EXAMPLE,
  flags: FLAGS,
  argCount: 2,
  run,
};
