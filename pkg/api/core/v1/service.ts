// The parts of a core/v1 Service that KubeVirt's own code writes (virtctl expose).

export type ServiceProtocol = "TCP" | "UDP" | "SCTP";
export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
export type IPFamily = "IPv4" | "IPv6";
export type IPFamilyPolicy = "SingleStack" | "PreferDualStack" | "RequireDualStack";

export interface ServicePort {
  name?: string;
  protocol?: ServiceProtocol;
  port: number;
  /** A number or the name of a container port; omitted means the same as `port`. */
  targetPort?: number | string;
}

export interface Service {
  apiVersion: "v1";
  kind: "Service";
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec: {
    ports: ServicePort[];
    selector: Record<string, string>;
    clusterIP?: string;
    type?: ServiceType;
    ipFamilies?: IPFamily[];
    ipFamilyPolicy?: IPFamilyPolicy;
    externalIPs?: string[];
  };
}
