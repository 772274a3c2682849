// virt-handler's console server with its lifecycle endpoints, on a loopback port, for tests that drive it
// as virt-api does; the caller makes the certificates (virt-api's testing/handler-stack.ts does).
import { silentLogger } from "../../../controller/index.js";
import { ConsoleServer } from "../console-server.js";
import { LifecycleHandler, type LifecycleHandlerOptions } from "../lifecycle.js";

/** The handler's serving certificate and key files, and the CA its clients' certificates chain to. */
export interface HandlerCertificateFiles {
  certFile: string;
  keyFile: string;
  clientCA: string;
}

export async function startLifecycleServer(
  options: Omit<LifecycleHandlerOptions, "logger">,
  certificates: HandlerCertificateFiles,
): Promise<{ port: number; stop(): Promise<void> }> {
  const server = new ConsoleServer({
    bindAddress: "127.0.0.1",
    port: 0,
    certFile: certificates.certFile,
    keyFile: certificates.keyFile,
    clientCA: { current: () => certificates.clientCA, onChange: () => () => undefined },
    handler: { handleUpgrade: async () => undefined, endAll: () => undefined },
    lifecycle: new LifecycleHandler({ ...options, logger: silentLogger }),
    logger: silentLogger,
  });
  return { port: await server.start(), stop: () => server.stop() };
}
