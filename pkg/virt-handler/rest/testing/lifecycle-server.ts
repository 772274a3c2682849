// virt-handler's console server with its lifecycle endpoints, on a loopback port with certificates made
// here (pkg/certificates), for tests that drive it as virt-api does: the CA bundle and the client
// certificate virt-api presents come back with the port.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../../certificates/triple.js";
import { silentLogger } from "../../../controller/index.js";
import { ConsoleServer } from "../console-server.js";
import { LifecycleHandler, type LifecycleHandlerOptions } from "../lifecycle.js";

export interface LifecycleServer {
  port: number;
  /** The KubeVirt CA the handler's serving certificate chains to. */
  caBundle: string;
  /** What virt-api presents: kubevirt.io:system:client:virt-handler. */
  client: PemKeyPair;
  /** The handler's serving certificate, for a stand-in handler on another port. */
  serving: PemKeyPair;
  stop(): Promise<void>;
}

export async function startLifecycleServer(
  options: Omit<LifecycleHandlerOptions, "logger">,
): Promise<LifecycleServer> {
  const dir = await mkdtemp(path.join(tmpdir(), "handler-"));
  const ca = await newCA("kubevirt.io");
  const caBundle = (await toPem(ca)).certPem;
  const serving = await toPem(
    await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" }),
  );
  const client = await toPem(
    await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
  );
  await writeFile(path.join(dir, "tls.crt"), serving.certPem);
  await writeFile(path.join(dir, "tls.key"), serving.keyPem);
  const server = new ConsoleServer({
    bindAddress: "127.0.0.1",
    port: 0,
    certFile: path.join(dir, "tls.crt"),
    keyFile: path.join(dir, "tls.key"),
    clientCA: { current: () => caBundle, onChange: () => () => undefined },
    handler: { handleUpgrade: async () => undefined, endAll: () => undefined },
    lifecycle: new LifecycleHandler({ ...options, logger: silentLogger }),
    logger: silentLogger,
  });
  const port = await server.start();
  return {
    port,
    caBundle,
    client,
    serving,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
