// libvirt's typed parameters (virTypedParameter: a name and an int/uint/llong/ullong/double/
// boolean/string value), as returned by e.g. domainGetJobStats, turned into a plain object.
import {
  VIR_TYPED_PARAM_BOOLEAN,
  VIR_TYPED_PARAM_DOUBLE,
  VIR_TYPED_PARAM_INT,
  VIR_TYPED_PARAM_LLONG,
  VIR_TYPED_PARAM_STRING,
  VIR_TYPED_PARAM_UINT,
  VIR_TYPED_PARAM_ULLONG,
} from "./generated/libvirt-api.js";
import type { RemoteTypedParam, RemoteTypedParamValue } from "./generated/remote-protocol.js";

/** 64-bit parameters stay bigint: byte counters exceed 2^53. */
export type TypedParamValue = number | bigint | boolean | string;

function valueOf(value: RemoteTypedParamValue): TypedParamValue {
  switch (value.type) {
    case VIR_TYPED_PARAM_INT:
      return value.i;
    case VIR_TYPED_PARAM_UINT:
      return value.ui;
    case VIR_TYPED_PARAM_LLONG:
      return value.l;
    case VIR_TYPED_PARAM_ULLONG:
      return value.ul;
    case VIR_TYPED_PARAM_DOUBLE:
      return value.d;
    case VIR_TYPED_PARAM_BOOLEAN:
      return value.b !== 0;
    case VIR_TYPED_PARAM_STRING:
      return value.s;
  }
}

/** Parameters by field name; libvirt may repeat a field (lists), the last one wins. */
export function typedParamsToRecord(params: readonly RemoteTypedParam[]): Record<string, TypedParamValue> {
  const record: Record<string, TypedParamValue> = {};
  for (const param of params) record[param.field] = valueOf(param.value);
  return record;
}

/** One typed parameter to send: a string (virTypedParamsAddString). */
export function stringParam(field: string, s: string): RemoteTypedParam {
  return { field, value: { type: VIR_TYPED_PARAM_STRING, s } };
}

/** One typed parameter to send: an unsigned 64-bit integer (virTypedParamsAddULLong). */
export function ullongParam(field: string, ul: bigint): RemoteTypedParam {
  return { field, value: { type: VIR_TYPED_PARAM_ULLONG, ul } };
}

/** One typed parameter to send: a signed 32-bit integer (virTypedParamsAddInt). */
export function intParam(field: string, i: number): RemoteTypedParam {
  return { field, value: { type: VIR_TYPED_PARAM_INT, i } };
}
