// Test helper: virt-api's subresource server for real, with no cluster — its HTTPS server (front-proxy
// authentication, a SubjectAccessReview stand-in) → mutual TLS → a virt-handler server the test starts
// with the certificates made here (by pkg/certificates). Also a "handler" that accepts connections and
// never answers, for the deadlines.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpsRequest, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  newCA,
  newClientKeyPair,
  newServerKeyPair,
  toPem,
  type PemKeyPair,
} from "../../../certificates/triple.js";
import { ClusterConfig } from "../../../virt-config/cluster-config.js";
import { createVirtApiServer, type VirtApiServer, type VirtApiServerOptions } from "../../server.js";
import { kubeVirtServiceAccounts } from "../../webhooks/routes.js";
import type { RequestHeaderConfig, SubjectAccessReview } from "../authorizer.js";
import type { HandlerTLS } from "../dialers.js";
import { KubeApiHealth } from "../healthz.js";
import { SubresourceApp, type LifecycleClient } from "../subresource-app.js";

const IDENTITY = { "X-Remote-User": "alice", "X-Remote-Group": "system:authenticated" };

export interface HandlerStack {
  /** The port virt-handler's console server listens on. */
  handlerPort: number;
  /** A port where a server accepts TLS connections and never answers. */
  silentPort: number;
  /** What virt-api presents to and trusts of virt-handler. */
  handlerTLS: HandlerTLS;
  /** The access review's answer; true until set. */
  allow: boolean;
  /** Every access review asked for, in order. */
  readonly reviews: SubjectAccessReview[];
  /** A request to virt-api as the front proxy makes it for alice; JSON unless `headers` say otherwise. */
  call(
    method: string,
    urlPath: string,
    body?: string | Buffer,
    headers?: Record<string, string>,
  ): Promise<{ code: number; body: string; type: string }>;
  stop(): Promise<void>;
}

/** virt-handler's side of the mutual TLS, as its console server reads it. */
export interface HandlerCertificates {
  certFile: string;
  keyFile: string;
  /** The KubeVirt CA its clients' certificates chain to. */
  clientCA: string;
}

export interface HandlerStackOptions {
  /**
   * Starts virt-handler's server with these certificates; resolves with its port and how to stop it.
   * Absent: no virt-handler, for subresources virt-api answers alone.
   */
  startHandler?(certificates: HandlerCertificates): Promise<{ port: number; stop(): Promise<void> }>;
  /** virt-api's subresources, given the stack for the handler's port and TLS. */
  api: (
    stack: HandlerStack,
  ) => Partial<Pick<VirtApiServerOptions, "vmiHandlerPut" | "guestInfo" | "console" | "expand">>;
}

export async function startHandlerStack(options: HandlerStackOptions): Promise<HandlerStack> {
  const dir = await mkdtemp(path.join(tmpdir(), "p"));
  const ca = await newCA("kubevirt.io");
  const kubevirtCA = (await toPem(ca)).certPem;
  const handlerServing = await toPem(
    await newServerKeyPair(ca, { commonName: "kubevirt.io:system:node:virt-handler" }),
  );
  const apiClientOfHandler = await toPem(
    await newClientKeyPair(ca, { commonName: "kubevirt.io:system:client:virt-handler" }),
  );
  await writeFile(path.join(dir, "tls.crt"), handlerServing.certPem);
  await writeFile(path.join(dir, "tls.key"), handlerServing.keyPem);
  const startHandler = options.startHandler ?? (async () => ({ port: 0, stop: async () => undefined }));
  const handlerServer = await startHandler({
    certFile: path.join(dir, "tls.crt"),
    keyFile: path.join(dir, "tls.key"),
    clientCA: kubevirtCA,
  });
  const handlerPort = handlerServer.port;
  const silent: Server = createServer(
    { cert: handlerServing.certPem, key: handlerServing.keyPem },
    () => undefined,
  );
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", () => resolve()));
  const silentAddress = silent.address();

  const apiServingCA = await newCA("kubevirt.io");
  const apiCA = (await toPem(apiServingCA)).certPem;
  const proxyCA = await newCA("front-proxy-ca");
  const proxyClient: PemKeyPair = await toPem(
    await newClientKeyPair(proxyCA, { commonName: "front-proxy-client" }),
  );
  const requestHeader: RequestHeaderConfig = {
    clientCA: (await toPem(proxyCA)).certPem,
    allowedNames: ["front-proxy-client"],
    usernameHeaders: ["X-Remote-User"],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
  };
  // Filled in once virt-api, which needs the stack for its subresources, listens.
  const api: { server?: VirtApiServer; port: number } = { port: 0 };
  const stack: HandlerStack = {
    handlerPort,
    silentPort: typeof silentAddress === "object" && silentAddress ? silentAddress.port : 0,
    handlerTLS: { caBundle: kubevirtCA, ...apiClientOfHandler },
    allow: true,
    reviews: [],
    call: (method, urlPath, body, headers) =>
      new Promise((resolve, reject) => {
        const request = httpsRequest(
          {
            host: "127.0.0.1",
            port: api.port,
            path: urlPath,
            method,
            ca: apiCA,
            cert: proxyClient.certPem,
            key: proxyClient.keyPem,
            headers: { ...IDENTITY, "Content-Type": "application/json", ...headers },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () =>
              resolve({
                code: response.statusCode ?? 0,
                body: Buffer.concat(chunks).toString(),
                type: response.headers["content-type"] ?? "",
              }),
            );
          },
        );
        request.on("error", reject);
        request.end(body);
      }),
    stop: async () => {
      await api.server?.close();
      await handlerServer.stop();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
  api.server = createVirtApiServer({
    tls: await toPem(
      await newServerKeyPair(apiServingCA, { commonName: "virt-api", ipAddresses: ["127.0.0.1"] }),
    ),
    requestHeader: () => requestHeader,
    reviewer: {
      review: async (review) => {
        stack.reviews.push(review);
        return { allowed: stack.allow, reason: stack.allow ? "" : "no RBAC policy matched" };
      },
    },
    webhooks: {
      clusterConfig: () => ClusterConfig.defaults(),
      kubeVirtServiceAccounts: kubeVirtServiceAccounts("kubevirt"),
    },
    subresources: new SubresourceApp({} as LifecycleClient),
    health: new KubeApiHealth(
      async () => ({}),
      () => "",
    ),
    ...options.api(stack),
  });
  await api.server.listen({ host: "127.0.0.1", port: 0 });
  const address = api.server.server.address();
  api.port = typeof address === "object" && address ? address.port : 0;
  return stack;
}

/** The path of a VMI subresource on virt-api. */
export const vmiSubresourceRoute = (subresource: string, version = "v1", name = "testvmi") =>
  `/apis/subresources.kubevirt.io/${version}/namespaces/default/virtualmachineinstances/${name}/${subresource}`;
