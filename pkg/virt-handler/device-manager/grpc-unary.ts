import type * as grpc from "@grpc/grpc-js";

type UnaryMethod = (
  request: unknown,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response: unknown) => void,
) => grpc.ClientUnaryCall;

/** Calls a unary method of a client built by grpc.loadPackageDefinition, as a promise with a deadline. */
export function callUnary(
  client: grpc.Client,
  method: string,
  request: unknown,
  timeoutMs: number,
): Promise<unknown> {
  const fn = (client as unknown as Record<string, UnaryMethod | undefined>)[method];
  if (!fn) return Promise.reject(new Error(`gRPC client has no method ${method}`));
  return new Promise((resolve, reject) => {
    fn.call(client, request, { deadline: Date.now() + timeoutMs }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}
