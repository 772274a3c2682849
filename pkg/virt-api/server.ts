// virt-api's HTTPS server: the admission webhooks and the subresources.kubevirt.io aggregated API on
// one port (8443), as upstream serves them. Bodies are parsed here, never by fastify, so that bad
// input becomes a Kubernetes Status instead of a framework error page.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "node:https";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { ServingTLS } from "../certificates/bootstrap/serving-cert.js";
import { accessControl, checkAccess, type AccessReviewer } from "./access-control.js";
import type { ConsoleProxy } from "./rest/console.js";
import type { ExpandSpecApp } from "./rest/expand.js";
import type { PortForwardProxy } from "./rest/portforward.js";
import { parseStreamRoute } from "./rest/stream-route.js";
import { vncStream, type ScreenshotProxy } from "./rest/vnc.js";
import type { RequestHeaderConfig } from "./rest/authorizer.js";
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  rootPaths,
  servedName,
  SUBRESOURCE_GROUP,
  SUBRESOURCE_VERSIONS,
} from "./rest/discovery.js";
import type { KubeApiHealth } from "./rest/healthz.js";
import type { HandlerPutProxy } from "./rest/handler-put.js";
import type { VMIHandlerVerb } from "./rest/vmi-lifecycle.js";
import { GUEST_INFO_SUBRESOURCES, type GuestInfoProxy } from "./rest/guest-info.js";
import type { LifecycleAction, SubresourceApp } from "./rest/subresource-app.js";
import type { MigrateApp } from "./rest/migrate.js";
import { VOLUME_VERBS, type VolumeApp } from "./rest/volume-app.js";
import { badRequest, internalError, notSupportedYet, routeNotFound, type Status } from "./rest/status.js";
import { clientHandshakeError, writeStatus } from "./rest/streamer.js";
import * as version from "../version/version.js";
import { METRICS_PATH, type MetricsEndpoint } from "../monitoring/metrics/common/endpoint.js";
import { handleAdmission } from "./webhooks/handler.js";
import { NOT_YET_SERVED_WEBHOOK_ROUTES, WEBHOOK_ROUTES, type WebhookContext } from "./webhooks/routes.js";

export interface VirtApiServerOptions {
  tls: ServingTLS;
  requestHeader: () => RequestHeaderConfig;
  reviewer: AccessReviewer;
  webhooks: WebhookContext;
  subresources: SubresourceApp;
  /** virtualmachines/migrate; absent: not registered. */
  migrate?: Pick<MigrateApp, "handle">;
  health: KubeApiHealth;
  /** The console stream; absent: console answers that it is not supported yet. */
  console?: Pick<ConsoleProxy, "handle">;
  /** vnc (through the console's proxy) and vnc/screenshot; absent: not registered. */
  vnc?: { stream: Pick<ConsoleProxy, "handle">; screenshot: Pick<ScreenshotProxy, "handle"> };
  /** portforward on VMIs and VMs; absent: not registered. */
  portForward?: Pick<PortForwardProxy, "handle">;
  /**
   * The VMI subresources virt-handler performs (pause, unpause, freeze, unfreeze, softreboot, reset), each
   * of `verbs` registered; absent: none is, so discovery does not list them.
   */
  vmiHandlerPut?: Pick<HandlerPutProxy<VMIHandlerVerb>, "handle" | "verbs">;
  /** addvolume and removevolume on VMs and VMIs; absent: not registered. */
  volumes?: Pick<VolumeApp, "handle">;
  /** The VMI guestosinfo/userlist/filesystemlist subresources; absent: not registered. */
  guestInfo?: Pick<GuestInfoProxy, "handle">;
  /** virtualmachines/expand-spec and expand-vm-spec; absent: not registered. */
  expand?: Pick<ExpandSpecApp, "expandVM" | "expandSpec">;
  /** GET /metrics, outside the access check as upstream serves it; absent: not registered. */
  metrics?: Pick<MetricsEndpoint, "answer">;
  logger?: FastifyBaseLogger;
}

export type VirtApiServer = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger>;

const MAX_BODY_BYTES = 3 << 20; // the apiserver's own limit on a request body is 3 MiB

type Parsed = { ok: true; value: unknown } | { ok: false; status: Status };

function parseJsonBody(body: unknown): Parsed {
  if (body === undefined) return { ok: true, value: undefined };
  const text = Buffer.isBuffer(body) ? body.toString("utf8") : "";
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, status: badRequest(`couldn't decode the body: ${(error as Error).message}`) };
  }
}

const isVersion = (version: string): version is (typeof SUBRESOURCE_VERSIONS)[number] =>
  (SUBRESOURCE_VERSIONS as readonly string[]).includes(version);

export function createVirtApiServer(options: VirtApiServerOptions): VirtApiServer {
  const app: VirtApiServer = Fastify({
    loggerInstance: options.logger,
    bodyLimit: MAX_BODY_BYTES,
    https: {
      cert: options.tls.certPem,
      key: options.tls.keyPem,
      // Client certificates are checked against the front proxy's CA; requests without one still
      // reach the webhooks (the apiserver calls them without a certificate).
      ca: options.requestHeader().clientCA,
      requestCert: true,
      rejectUnauthorized: false,
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  // As go-restful's container: its filters (the access check) run before an unknown path is answered 404.
  app.setNotFoundHandler(
    { preHandler: accessControl(options.requestHeader, options.reviewer) },
    async (request, reply) => reply.code(404).send(routeNotFound(request.url)),
  );
  // What fastify itself refuses (a body over the limit, a malformed request) still answers with a Status.
  app.setErrorHandler(async (error: { statusCode?: number; message: string }, _request, reply) => {
    const clientError = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
    const status = clientError
      ? { ...badRequest(error.message), code: error.statusCode ?? 400 }
      : internalError(error.message);
    return reply.code(status.code).send(status);
  });

  // WebSocket upgrades reach node's `upgrade` event, never fastify: the same access check runs here.
  const streams = new Set<Duplex>();
  // Streams are not the HTTP server's to close: end them, or closing would wait for every console.
  app.addHook("preClose", async () => {
    for (const stream of streams) stream.destroy();
  });
  app.server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    streams.add(socket);
    socket.once("close", () => streams.delete(socket));
    socket.on("error", () => socket.destroy());
    serveUpgrade(app, options, request, socket, head).catch((error: unknown) => {
      app.log.error({ err: error }, "stream upgrade failed");
      socket.destroy();
    });
  });
  registerWebhooks(app, options.webhooks);
  const metrics = options.metrics;
  if (metrics) {
    app.get(METRICS_PATH, async (_request, reply) => {
      const { code, contentType, body } = await metrics.answer();
      return reply.code(code).type(contentType).send(body);
    });
  }
  app.register(async (api: VirtApiServer) => {
    api.addHook("onRequest", accessControl(options.requestHeader, options.reviewer));
    registerSubresourceApi(api, options);
  });
  return app;
}

function registerWebhooks(app: VirtApiServer, context: WebhookContext): void {
  for (const route of [...WEBHOOK_ROUTES, ...NOT_YET_SERVED_WEBHOOK_ROUTES]) {
    app.post(route.path, async (request, reply) => {
      const body = parseJsonBody(request.body);
      if (!body.ok) return reply.code(400).send(body.status);
      const answer = await handleAdmission(body.value, route, context);
      return reply.code(answer.code).send(answer.body);
    });
  }
}

function registerSubresourceApi(api: VirtApiServer, options: VirtApiServerOptions): void {
  const base = `/apis/${SUBRESOURCE_GROUP}`;
  const health = () => options.health.check();
  // Discovery lists what is registered below, so it cannot claim a subresource that answers 404.
  const served = new Set<string>();
  api.addHook("onRoute", (route) => {
    const name = servedName(route.url);
    if (name !== undefined) served.add(name);
  });
  api.get("/", async () => rootPaths());
  api.get("/apis", async () => apiGroupList());
  api.get(base, async () => apiGroup());
  api.get("/healthz", async (_request, reply) => {
    const result = await health();
    return reply.code(result.code).send(result.body);
  });
  api.get<{ Params: { version: string } }>(`${base}/:version`, async (request, reply) => {
    const { version } = request.params;
    if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
    return apiResourceList(version, served);
  });
  api.get<{ Params: { version: string } }>(`${base}/:version/version`, async (request, reply) => {
    if (!isVersion(request.params.version)) return reply.code(404).send(routeNotFound(request.url));
    return version.get();
  });
  api.get<{ Params: { version: string } }>(`${base}/:version/healthz`, async (request, reply) => {
    if (!isVersion(request.params.version)) return reply.code(404).send(routeNotFound(request.url));
    const result = await health();
    return reply.code(result.code).send(result.body);
  });
  type LifecycleParams = { version: string; namespace: string; name: string };
  for (const action of LIFECYCLE_ACTIONS) {
    api.put<{ Params: LifecycleParams }>(
      `${base}/:version/namespaces/:namespace/virtualmachines/:name/${action}`,
      async (request, reply) => {
        const { version, namespace, name } = request.params;
        if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
        const body = parseJsonBody(request.body);
        if (!body.ok) return reply.code(400).send(body.status);
        const answer = await options.subresources.handle(action, namespace, name, body.value);
        return answer.body ? reply.code(answer.code).send(answer.body) : reply.code(answer.code).send();
      },
    );
  }
  const migrate = options.migrate;
  if (migrate) {
    api.put<{ Params: LifecycleParams }>(
      `${base}/:version/namespaces/:namespace/virtualmachines/:name/migrate`,
      async (request, reply) => {
        const { version, namespace, name } = request.params;
        if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
        const body = parseJsonBody(request.body);
        if (!body.ok) return reply.code(400).send(body.status);
        const answer = await migrate.handle(namespace, name, body.value);
        return answer.body ? reply.code(answer.code).send(answer.body) : reply.code(answer.code).send();
      },
    );
  }
  const handlerPut = options.vmiHandlerPut;
  for (const verb of handlerPut?.verbs ?? []) {
    api.put<{ Params: LifecycleParams }>(
      `${base}/:version/namespaces/:namespace/virtualmachineinstances/:name/${verb}`,
      async (request, reply) => {
        const { version, namespace, name } = request.params;
        if (!isVersion(version) || !handlerPut) return reply.code(404).send(routeNotFound(request.url));
        const body = parseJsonBody(request.body);
        if (!body.ok) return reply.code(400).send(body.status);
        const answer = await handlerPut.handle(verb, namespace, name, body.value);
        return answer.body ? reply.code(answer.code).send(answer.body) : reply.code(answer.code).send();
      },
    );
  }
  const volumes = options.volumes;
  for (const resource of volumes ? (["virtualmachines", "virtualmachineinstances"] as const) : []) {
    for (const verb of VOLUME_VERBS) {
      api.put<{ Params: LifecycleParams }>(
        `${base}/:version/namespaces/:namespace/${resource}/:name/${verb}`,
        async (request, reply) => {
          const { version, namespace, name } = request.params;
          if (!isVersion(version) || !volumes) return reply.code(404).send(routeNotFound(request.url));
          const body = parseJsonBody(request.body);
          if (!body.ok) return reply.code(400).send(body.status);
          const answer = await volumes.handle(resource, verb, namespace, name, body.value);
          return answer.body ? reply.code(answer.code).send(answer.body) : reply.code(answer.code).send();
        },
      );
    }
  }
  const guestInfo = options.guestInfo;
  for (const subresource of guestInfo ? GUEST_INFO_SUBRESOURCES : []) {
    api.get<{ Params: LifecycleParams }>(
      `${base}/:version/namespaces/:namespace/virtualmachineinstances/:name/${subresource}`,
      async (request, reply) => {
        const { version, namespace, name } = request.params;
        if (!isVersion(version) || !guestInfo) return reply.code(404).send(routeNotFound(request.url));
        const answer = await guestInfo.handle(subresource, namespace, name);
        if ("json" in answer) return reply.code(answer.code).send(answer.json);
        // go-restful's WriteError: the code and the error's text, no Status.
        return reply.code(answer.code).type("text/plain; charset=utf-8").send(answer.text);
      },
    );
  }
  if (options.expand) registerExpand(api, options.expand);
  registerStreamRefusals(api, options);
  const vnc = options.vnc;
  if (vnc) {
    api.get<{ Params: LifecycleParams }>(
      `${base}/:version/namespaces/:namespace/virtualmachineinstances/:name/vnc/screenshot`,
      async (request, reply) => {
        const { version, namespace, name } = request.params;
        if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
        const answer = await vnc.screenshot.handle(namespace, name);
        return reply.code(answer.code).type(answer.contentType).send(answer.body);
      },
    );
  }
}

/** go-restful's answer to a body whose Content-Type the route does not consume. */
const UNSUPPORTED_MEDIA_TYPE = "415: Unsupported Media Type";

/**
 * go-restful's Consumes(MIME_JSON): a request with a body must say it is JSON (parameters aside); one
 * without a Content-Type counts as application/octet-stream.
 */
function consumesJSON(request: IncomingMessage): boolean {
  if (Number(request.headers["content-length"] ?? 0) <= 0) return true;
  const type = (request.headers["content-type"] ?? "").split(";", 1)[0] ?? "";
  return type === "application/json";
}

function registerExpand(api: VirtApiServer, expand: NonNullable<VirtApiServerOptions["expand"]>): void {
  const base = `/apis/${SUBRESOURCE_GROUP}/:version/namespaces/:namespace`;
  api.get<{ Params: { version: string; namespace: string; name: string } }>(
    `${base}/virtualmachines/:name/expand-spec`,
    async (request, reply) => {
      const { version, namespace, name } = request.params;
      if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
      const answer = await expand.expandVM(namespace, name);
      return reply.code(answer.code).send(answer.body);
    },
  );
  api.put<{ Params: { version: string; namespace: string } }>(
    `${base}/expand-vm-spec`,
    async (request, reply) => {
      const { version, namespace } = request.params;
      if (!isVersion(version)) return reply.code(404).send(routeNotFound(request.url));
      if (!consumesJSON(request.raw)) {
        return reply.code(415).type("text/plain; charset=utf-8").send(UNSUPPORTED_MEDIA_TYPE);
      }
      // Go's server hands a handler a body even when none was sent: an empty one.
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const answer = await expand.expandSpec(namespace, body);
      return reply.code(answer.code).send(answer.body);
    },
  );
}

/**
 * A stream request that is no WebSocket upgrade: refused as upstream's upgrader refuses it. Registered for
 * each stream that is served, which is what lists it in discovery.
 */
function registerStreamRefusals(api: VirtApiServer, options: VirtApiServerOptions): void {
  const base = `/apis/${SUBRESOURCE_GROUP}/:version/namespaces/:namespace`;
  const paths = [`${base}/virtualmachineinstances/:name/console`];
  if (options.vnc) paths.push(`${base}/virtualmachineinstances/:name/vnc`);
  if (options.portForward) {
    for (const resource of ["virtualmachineinstances", "virtualmachines"]) {
      paths.push(
        `${base}/${resource}/:name/portforward/:port`,
        `${base}/${resource}/:name/portforward/:port/:protocol`,
      );
    }
  }
  for (const path of paths) {
    api.get<{ Params: { version: string } }>(path, async (request, reply) => {
      if (!isVersion(request.params.version)) return reply.code(404).send(routeNotFound(request.url));
      return reply
        .code(400)
        .send(badRequest(clientHandshakeError(request.raw) ?? "not a websocket handshake"));
    });
  }
}

async function serveUpgrade(
  app: VirtApiServer,
  options: VirtApiServerOptions,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const refused = await checkAccess(request, options.requestHeader(), options.reviewer, (error) =>
    app.log.error({ err: error }, "internal error during auth request"),
  );
  if (refused) return writeStatus(socket, refused);
  const route = parseStreamRoute(request.url ?? "", SUBRESOURCE_VERSIONS);
  const notFound = () => writeStatus(socket, routeNotFound(request.url?.split("?", 1)[0] ?? ""));
  switch (route?.subresource) {
    case "console":
      if (!options.console) return writeStatus(socket, notSupportedYet("virtualmachineinstances/console"));
      return options.console.handle(request, socket, head, route.namespace, route.name);
    case "vnc":
      if (!options.vnc) return notFound();
      return options.vnc.stream.handle(
        request,
        socket,
        head,
        route.namespace,
        route.name,
        vncStream(route.query),
      );
    case "portforward":
      if (!options.portForward) return notFound();
      return options.portForward.handle(request, socket, head, route);
    default:
      return notFound();
  }
}

const LIFECYCLE_ACTIONS: readonly LifecycleAction[] = ["start", "stop", "restart"];
