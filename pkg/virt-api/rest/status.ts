// The metav1.Status errors virt-api answers with, worded as apimachinery's api/errors builds them
// (NewConflict, NewNotFound, NewInternalError, NewBadRequest, NewUnauthorized, NewForbidden), so that
// kubectl and virtctl print the same lines as against upstream.

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { message: string }[];
}

export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  code: number;
  details?: StatusDetails;
}

/** A resource qualified by its group, printed as `virtualmachine.kubevirt.io`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export const virtualMachineResource: GroupResource = { group: "kubevirt.io", resource: "virtualmachine" };
export const virtualMachineInstanceResource: GroupResource = {
  group: "kubevirt.io",
  resource: "virtualmachineinstance",
};

function qualified(resource: GroupResource): string {
  return resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  if (details) status.details = details;
  return status;
}

function objectDetails(resource: GroupResource, name: string): StatusDetails {
  return { name, group: resource.group, kind: resource.resource };
}

export function conflict(resource: GroupResource, name: string, why: string): Status {
  return failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(resource)} ${JSON.stringify(name)}: ${why}`,
    objectDetails(resource, name),
  );
}

export function notFound(resource: GroupResource, name: string): Status {
  return failure(
    404,
    "NotFound",
    `${qualified(resource)} ${JSON.stringify(name)} not found`,
    objectDetails(resource, name),
  );
}

export function internalError(why: string): Status {
  return failure(500, "InternalError", `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

export function badRequest(message: string): Status {
  return failure(400, "BadRequest", message);
}

export function unauthorized(message: string): Status {
  return failure(401, "Unauthorized", message);
}

/** 403 for an action the SubjectAccessReview denied. */
export function forbidden(message: string): Status {
  return failure(403, "Forbidden", message);
}

export function routeNotFound(path: string): Status {
  return failure(404, "NotFound", `the server could not find the requested resource (${path})`);
}

/** A subresource kubevirt-ts does not serve yet: said plainly rather than faked. */
export function notSupportedYet(what: string): Status {
  return failure(501, "NotImplemented", `${what} is not supported yet`);
}
