// The aggregated subresource APIs virt-api serves, one APIService per version (upstream's
// components/apiservices.go).
import {
  APP_LABEL,
  CERTIFICATES_SECRET_ANNOTATION,
  MANAGED_BY_LABEL,
  MANAGED_BY_OPERATOR,
} from "../../../util/labels.js";
import type { APIService } from "./k8s-types.js";
import { SUBRESOURCE_GROUP, SUBRESOURCE_VERSIONS, VIRT_API_CERT_SECRET, VIRT_API_SERVICE } from "./names.js";

export function newVirtApiAPIServices(installNamespace: string): APIService[] {
  return SUBRESOURCE_VERSIONS.map((version) => ({
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: {
      name: `${version}.${SUBRESOURCE_GROUP}`,
      labels: { [APP_LABEL]: "virt-api-aggregator", [MANAGED_BY_LABEL]: MANAGED_BY_OPERATOR },
      annotations: { [CERTIFICATES_SECRET_ANNOTATION]: VIRT_API_CERT_SECRET },
    },
    spec: {
      service: { namespace: installNamespace, name: VIRT_API_SERVICE },
      group: SUBRESOURCE_GROUP,
      version,
      groupPriorityMinimum: 1000,
      versionPriority: 15,
    },
  }));
}
