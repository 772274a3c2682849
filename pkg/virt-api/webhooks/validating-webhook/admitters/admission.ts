// What a validating admitter is given and what it answers, shaped like admission/v1 (the webhook server
// adds the uid), and upstream's way of turning causes into a denial (pkg/util/webhooks
// ToAdmissionResponse): 422 Invalid, the first ten causes, their messages joined.
import type { ClusterConfig } from "../../../../virt-config/cluster-config.js";
import type { StatusCause } from "../../../../api/causes.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface ValidationRequest {
  operation: AdmissionOperation;
  /** request.object */
  object: unknown;
  /** request.oldObject, on UPDATE */
  oldObject?: unknown;
  /** request.namespace */
  namespace?: string;
  /** request.userInfo.username */
  username?: string;
  /** request.userInfo.extra */
  extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ValidationContext {
  clusterConfig: ClusterConfig;
  /** Usernames of KubeVirt's own components (system:serviceaccount:<namespace>:kubevirt-handler, ...). */
  kubeVirtServiceAccounts: ReadonlySet<string>;
}

/** An admitter's decision: refused when there is any cause. */
export interface Verdict {
  causes: StatusCause[];
  warnings: string[];
}

export interface ValidationResponse {
  allowed: boolean;
  warnings?: string[];
  result?: {
    message: string;
    code: number;
    reason?: "Invalid";
    details?: { causes: StatusCause[] };
  };
}

const MAX_REPORTED_CAUSES = 10;

export const refused = (causes: StatusCause[]): Verdict => ({ causes, warnings: [] });
export const accepted = (warnings: string[] = []): Verdict => ({ causes: [], warnings });

export function toValidationResponse(verdict: Verdict): ValidationResponse {
  if (verdict.causes.length === 0) {
    return verdict.warnings.length === 0 ? { allowed: true } : { allowed: true, warnings: verdict.warnings };
  }
  const reported = verdict.causes.slice(0, MAX_REPORTED_CAUSES);
  const more = verdict.causes.length - reported.length;
  const joined = reported.map((cause) => cause.message ?? "").join(", ");
  const message = more > 0 ? `${joined}, and ${more} more validation errors` : joined;
  return { allowed: false, result: { message, code: 422, reason: "Invalid", details: { causes: reported } } };
}
