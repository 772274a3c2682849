// Naming and DNS rules of a VMI spec (upstream vmi-create-admitter.go, partly copied there from
// Kubernetes' pod validation): hostname and subdomain as DNS names, the DNS policy and DNS config.
// Upstream reports the DNS config problems under bare field names (`nameservers`, ...); kept as-is.
import type { VirtualMachineInstanceSpec } from "../../../../api/generated/v1.js";
import {
  invalidCause,
  notSupportedCause,
  requiredCause,
  type Path,
  type StatusCause,
} from "../../../../api/causes.js";
import { isDNS1123Label, isDNS1123Subdomain, isIP } from "../../../../util/k8s-validation.js";

const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 6;
const MAX_DNS_SEARCH_LIST_CHARS = 256;
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None", ""];

export function validateHostname(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const hostname = spec.hostname ?? "";
  if (hostname === "") return [];
  const errors = isDNS1123Label(hostname);
  if (errors.length === 0) return [];
  const at = field.child("hostname");
  return [
    invalidCause(
      `${at.toString()} does not conform to the kubernetes DNS_LABEL rules : ${errors.join(", ")}`,
      at,
    ),
  ];
}

export function validateSubdomain(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const subdomain = spec.subdomain ?? "";
  if (subdomain === "") return [];
  const errors = isDNS1123Subdomain(subdomain);
  if (errors.length === 0) return [];
  const at = field.child("subdomain");
  return [
    invalidCause(
      `${at.toString()} does not conform to the kubernetes DNS_SUBDOMAIN rules : ${errors.join(", ")}`,
      at,
    ),
  ];
}

export function validateDNSPolicy(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const policy: string = spec.dnsPolicy ?? "";
  if (DNS_POLICIES.includes(policy)) return [];
  return [
    notSupportedCause(
      `DNSPolicy: ${policy} is not supported, valid values: [${DNS_POLICIES.join(" ")}]`,
      field.child("dnsPolicy"),
    ),
  ];
}

export function validateDNSConfig(field: Path, spec: VirtualMachineInstanceSpec): StatusCause[] {
  const config = spec.dnsConfig;
  const at = field.child("dnsConfig");
  if (spec.dnsPolicy === "None") {
    if (config === undefined) {
      return [requiredCause("must provide `dnsConfig` when `dnsPolicy` is None", at)];
    }
    if ((config.nameservers ?? []).length === 0) {
      return [
        requiredCause("must provide at least one DNS nameserver when `dnsPolicy` is None", "nameservers"),
      ];
    }
  }
  if (config === undefined) return [];
  const causes: StatusCause[] = [];
  const nameservers = config.nameservers ?? [];
  if (nameservers.length > MAX_DNS_NAMESERVERS) {
    causes.push(
      invalidCause(
        `must not have more than ${MAX_DNS_NAMESERVERS} nameservers: [${nameservers.join(" ")}]`,
        "nameservers",
      ),
    );
  }
  for (const nameserver of nameservers) {
    if (!isIP(nameserver))
      causes.push(invalidCause(`must be valid IP address: ${nameserver}`, "nameservers"));
  }
  const searches = config.searches ?? [];
  if (searches.length > MAX_DNS_SEARCH_PATHS) {
    causes.push(
      invalidCause(`must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`, "searchDomains"),
    );
  }
  if (Buffer.byteLength(searches.join(" "), "utf8") > MAX_DNS_SEARCH_LIST_CHARS) {
    causes.push(
      invalidCause(
        `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
        "searchDomains",
      ),
    );
  }
  for (const search of searches) {
    for (const error of isDNS1123Subdomain(search)) causes.push(invalidCause(error, "searchDomains"));
  }
  for (const option of config.options ?? []) {
    if ((option.name ?? "") === "") causes.push(invalidCause("Option.Name must not be empty", "options"));
  }
  return causes;
}
