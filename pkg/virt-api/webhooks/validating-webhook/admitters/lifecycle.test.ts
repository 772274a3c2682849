// One row per lifecycle, naming and DNS rule of a VMI spec, and the VM run strategy rules.
import { describe, expect, it } from "vitest";
import type { VirtualMachineSpec } from "../../../../api/generated/v1.js";
import { clusterWith } from "../../../../defaults/testing.js";
import { specPath } from "../../../../api/causes.js";
import { validateRunStrategy } from "./lifecycle.js";
import { invalid, required, specCauses, validSpec, type RuleRow } from "./testing.js";

const SUBDOMAIN_REGEX_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const rows: RuleRow[] = [
  {
    rule: "the start strategy is Paused or unset",
    change: (spec) => {
      spec.startStrategy = "invalid";
    },
    causes: [invalid("spec.startStrategy", "spec.startStrategy is set with an unrecognized option: invalid")],
  },
  {
    rule: "a paused start excludes a liveness probe",
    change: (spec) => {
      spec.startStrategy = "Paused";
      spec.livenessProbe = { guestAgentPing: {} };
    },
    causes: [
      invalid(
        "spec.startStrategy",
        "either spec.startStrategy or spec.livenessProbe should be provided.Pausing VMI with LivenessProbe is not supported",
      ),
    ],
  },
  {
    rule: "the eviction strategy is known",
    change: (spec) => {
      spec.evictionStrategy = "fantasy";
    },
    causes: [
      invalid("spec.evictionStrategy", "spec.evictionStrategy is set with an unrecognized option: fantasy"),
    ],
  },
  {
    rule: "a probe has exactly one handler",
    change: (spec) => {
      spec.readinessProbe = { initialDelaySeconds: 1 };
      spec.livenessProbe = { guestAgentPing: {}, exec: { command: ["true"] } };
    },
    causes: [
      required(
        "spec.readinessProbe",
        "either spec.readinessProbe.tcpSocket, spec.readinessProbe.exec or spec.readinessProbe.httpGet must be set if a spec.readinessProbe is specified",
      ),
      invalid("spec.livenessProbe", "spec.livenessProbe must have exactly one probe type set"),
    ],
  },
  {
    rule: "HTTP and TCP probes need the pod network",
    change: (spec) => {
      spec.networks = [];
      spec.domain.devices.interfaces = [];
      spec.readinessProbe = { httpGet: { port: 80 } };
    },
    causes: [
      invalid(
        "spec.readinessProbe.httpGet",
        "spec.readinessProbe.httpGet is only allowed if the Pod Network is attached",
      ),
    ],
  },
  {
    rule: "the hostname is a DNS label",
    change: (spec) => {
      spec.hostname = "My_Host";
    },
    causes: [
      invalid(
        "spec.hostname",
        "spec.hostname does not conform to the kubernetes DNS_LABEL rules : a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ),
    ],
  },
  {
    rule: "the hostname has no dots and at most 63 characters",
    change: (spec) => {
      spec.hostname = `${"h".repeat(63)}.x`;
    },
    causes: [
      invalid(
        "spec.hostname",
        "spec.hostname does not conform to the kubernetes DNS_LABEL rules : must be no more than 63 characters, must not contain dots",
      ),
    ],
  },
  {
    rule: "the subdomain is a DNS subdomain",
    change: (spec) => {
      spec.subdomain = "-bad";
    },
    causes: [
      invalid(
        "spec.subdomain",
        `spec.subdomain does not conform to the kubernetes DNS_SUBDOMAIN rules : ${SUBDOMAIN_REGEX_ERROR}`,
      ),
    ],
  },
  {
    rule: "dnsPolicy None needs nameservers",
    change: (spec) => {
      spec.dnsPolicy = "None";
      spec.dnsConfig = {};
    },
    causes: [required("nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")],
  },
  {
    rule: "DNS nameservers are IP addresses, at most three",
    change: (spec) => {
      spec.dnsConfig = { nameservers: ["1.1.1.1", "2.2.2.2", "::1", "dns.example"] };
    },
    causes: [
      invalid("nameservers", "must not have more than 3 nameservers: [1.1.1.1 2.2.2.2 ::1 dns.example]"),
      invalid("nameservers", "must be valid IP address: dns.example"),
    ],
  },
  {
    rule: "the service account name is a DNS subdomain matching its volume",
    change: (spec) => {
      spec.serviceAccountName = "builder";
      spec.volumes?.push({ name: "sa", serviceAccount: { serviceAccountName: "other" } });
      spec.domain.devices.disks?.push({ name: "sa" });
    },
    causes: [
      invalid(
        "spec.serviceAccountName",
        'spec.serviceAccountName "builder" and serviceAccount volume "other" must reference the same service account',
      ),
    ],
  },
  {
    rule: "access credentials over noCloud need a noCloud volume",
    change: (spec) => {
      spec.volumes = spec.volumes?.slice(0, 1);
      spec.domain.devices.disks = spec.domain.devices.disks?.slice(0, 1);
      spec.accessCredentials = [
        { sshPublicKey: { source: {}, propagationMethod: { noCloud: {}, qemuGuestAgent: { users: [] } } } },
      ];
    },
    causes: [
      invalid(
        "spec.accessCredentials[0].sshPublicKey.propagationMethod",
        "spec.accessCredentials[0] requires a noCloud volume to exist when the noCloud propagationMethod is in use.",
      ),
      invalid(
        "spec.accessCredentials[0].sshPublicKey.propagationMethod.qemuGuestAgent.users",
        "spec.accessCredentials[0] requires at least one user to be present in the users list",
      ),
      invalid(
        "spec.accessCredentials[0].sshPublicKey.source",
        "spec.accessCredentials[0] must have exactly one source set",
      ),
      invalid(
        "spec.accessCredentials[0].sshPublicKey.propagationMethod",
        "spec.accessCredentials[0] must have exactly one propagationMethod set",
      ),
    ],
  },
];

describe("lifecycle, naming and DNS rules", () => {
  it.each(rows)("$rule", ({ change, causes, config }) => {
    expect(specCauses(change, config)).toEqual(causes);
  });
});

describe("VM run strategy", () => {
  const vmSpec = (fields: Partial<VirtualMachineSpec>): VirtualMachineSpec => ({
    template: { spec: validSpec() },
    ...fields,
  });
  const config = clusterWith();

  it.each([
    [
      "running and runStrategy are exclusive",
      { running: true, runStrategy: "Always" },
      [
        invalid(
          "spec.running",
          "Running and RunStrategy are mutually exclusive. Note that Running is deprecated, please use RunStrategy instead",
        ),
      ],
    ],
    ["one of them is required", {}, [invalid("spec.running", "RunStrategy must be specified")]],
    [
      "the strategy is known",
      { runStrategy: "Sometimes" },
      [invalid("spec.runStrategy", "Invalid RunStrategy (Sometimes)")],
    ],
    ["running alone is accepted", { running: false }, []],
    ["each known strategy is accepted", { runStrategy: "RerunOnFailure" }, []],
  ] as const)("%s", (_rule, fields, causes) => {
    expect(validateRunStrategy(specPath(), vmSpec(fields), config)).toEqual(causes);
  });

  it("accepts WaitAsReceiver only with DecentralizedLiveMigration listed (an Alpha gate in v1.8.4)", () => {
    const waiting = vmSpec({ runStrategy: "WaitAsReceiver" });
    const listed = clusterWith({ developerConfiguration: { featureGates: ["DecentralizedLiveMigration"] } });
    expect(validateRunStrategy(specPath(), waiting, listed)).toEqual([]);
    const refusal = [
      invalid(
        "spec.runStrategy",
        "Invalid RunStrategy (WaitAsReceiver), DecentralizedLiveMigration feature gate is not enabled in kubevirt resource",
      ),
    ];
    expect(validateRunStrategy(specPath(), waiting, config)).toEqual(refusal);
    const disabled = clusterWith({
      developerConfiguration: { disabledFeatureGates: ["DecentralizedLiveMigration"] },
    });
    expect(validateRunStrategy(specPath(), waiting, disabled)).toEqual(refusal);
  });
});
