// The instancetype expansion subresources (upstream pkg/virt-api/rest/expand.go): GET
// virtualmachines/{name}/expand-spec expands a stored VM, PUT expand-vm-spec the VM in the body. The body
// goes through upstream's steps in upstream's order and words: Go's JSON syntax check, the schema
// validation (its findings as causes), Go's typed decoding, the namespace; then the expander. Expansion
// failures are InternalErrors for a stored VM and BadRequests for a sent one, as upstream maps them.
import type { VirtualMachine } from "../../api/generated/v1.js";
import { goMetaDecodeError } from "../../api/go-meta-decode.js";
import { parseDefinition } from "../../api/parse.js";
import type { Expander } from "../../instancetype/expand/expand.js";
import { errorMessage } from "../../util/error-message.js";
import { goJsonTypeName, goUnmarshal } from "../../util/go-json.js";
import { validateObject } from "../../util/openapi/validator.js";
import { badRequest, internalError, type Status } from "./status.js";
import { fetchVM, type LifecycleClient } from "./subresource-app.js";

/** The answer: the expanded VM with 200, or a Status with its code. */
export interface ExpandReply {
  code: number;
  body: VirtualMachine | Status;
}

const unmarshalError = (detail: string) =>
  badRequest(`Can not unmarshal Request body to struct, error: ${detail}`);

const failed = (status: Status): ExpandReply => ({ code: status.code, body: status });

/** Upstream's writeValidationErrors: one cause per finding, messages only. */
function invalidVirtualMachine(problems: readonly string[]): Status {
  return {
    ...badRequest("Object is not a valid VirtualMachine"),
    details: { causes: problems.map((message) => ({ message })) },
  };
}

/** The body decoded as upstream decodes it, or the BadRequest it answers. */
function decodeVirtualMachine(body: Uint8Array): VirtualMachine | Status {
  const raw = goUnmarshal(body);
  if (!raw.ok) return unmarshalError(raw.message);
  const value = raw.value;
  // Upstream first decodes into a map[string]interface{}; JSON null leaves it empty.
  if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
    return unmarshalError(
      `json: cannot unmarshal ${goJsonTypeName(value)} into Go value of type map[string]interface {}`,
    );
  }
  const object = value as Record<string, unknown> | null;
  const problems = validateObject("VirtualMachine", object);
  if (problems.length > 0) return invalidVirtualMachine(problems);
  const typed = goMetaDecodeError("VirtualMachine", object ?? {});
  if (typed !== undefined) return unmarshalError(typed);
  const parsed = parseDefinition("v1.VirtualMachine", object);
  // What the schema refuses beyond upstream's checks (metadata formats) is refused at the decoding step.
  if (!parsed.ok) return unmarshalError(parsed.errors.map((error) => error.toString()).join(", "));
  return parsed.value;
}

export class ExpandSpecApp {
  constructor(
    private readonly client: Pick<LifecycleClient, "getVM">,
    private readonly expander: Pick<Expander, "expand">,
  ) {}

  /** Upstream's ExpandSpecVMRequestHandler. */
  async expandVM(namespace: string, name: string): Promise<ExpandReply> {
    const vm = await fetchVM(this.client, namespace, name);
    if ("code" in vm) return failed(vm);
    return this.respond(vm, internalError);
  }

  /**
   * Upstream's ExpandSpecRequestHandler. `body` is undefined only for a request without any body, which
   * Go's server never hands a handler: over HTTP an empty body is bytes like any other, and fails to decode.
   */
  async expandSpec(namespace: string, body: Uint8Array | undefined): Promise<ExpandReply> {
    if (body === undefined) return failed(badRequest("empty request body"));
    const vm = decodeVirtualMachine(body);
    if ("code" in vm) return failed(vm);
    if (namespace === "") return failed(badRequest("The request namespace must not be empty"));
    const own = vm.metadata?.namespace ?? "";
    if (own !== "" && own !== namespace) {
      return failed(badRequest(`VM namespace must be empty or ${namespace}`));
    }
    vm.metadata = { ...vm.metadata, namespace };
    return this.respond(vm, badRequest);
  }

  private async respond(vm: VirtualMachine, asStatus: (message: string) => Status): Promise<ExpandReply> {
    try {
      return { code: 200, body: await this.expander.expand(vm) };
    } catch (error) {
      return failed(asStatus(errorMessage(error)));
    }
  }
}
