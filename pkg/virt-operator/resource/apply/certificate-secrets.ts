// The self-signed PKI (upstream's createOrUpdateComponentsWithCertificates): the CA Secret, the CA bundle
// ConfigMap (old CAs stay trusted for an overlap period after a rotation, admin-supplied CAs are added),
// the webhook configurations and APIServices that carry the bundle, and the certificates the CA signs.
// Every certificate is renewed before it expires; the operator asks to be woken up at each deadline.
import type { X509Certificate } from "@peculiar/x509";
import type { CertificateKeyPair } from "../../../certificates/triple.js";
import { keyOf } from "../../../controller/object.js";
import { OPERATOR_RESOURCES } from "../../resources.js";
import { formatGoDuration } from "../../../util/go-duration.js";
import { CERTIFICATE_DURATION_ANNOTATION } from "../../util/labels.js";
import type { ConfigMap, Secret } from "../generate/components/k8s-types.js";
import {
  CA_BUNDLE_KEY,
  EXTERNAL_KUBEVIRT_CA_CONFIGMAP,
  KUBEVIRT_CA_SECRET,
} from "../generate/components/names.js";
import {
  certificatePem,
  loadCertificate,
  mergeCABundle,
  nextRotationDeadline,
  parseCertificatesPem,
  populateSecretWithCertificate,
} from "../generate/components/secrets.js";
import type { InstallStrategy } from "../generate/install/strategy.js";
import { createOrPatch } from "./apply.js";
import { caDuration, caRenewBefore, certDuration, certRenewBefore } from "./certificates.js";
import type { ReconcileContext } from "./context.js";
import { errorMessage } from "../../../util/error-message.js";
import { apiServiceRules, mutatingWebhookRules, validatingWebhookRules } from "./kinds.js";
import { injectOperatorMetadata, metadataPatch, metadataUpToDate } from "./metadata.js";

const secretsGvr = OPERATOR_RESOURCES.secrets;
const configMapsGvr = OPERATOR_RESOURCES.configMaps;

interface Lifetime {
  durationMs: number;
  renewBeforeMs: number;
  /** For certificates a CA signs: how long before the CA's expiry it is renewed. */
  caRenewBeforeMs?: number;
}

async function needsRotation(
  ctx: ReconcileContext,
  secret: Secret,
  ca: CertificateKeyPair | undefined,
  lifetime: Lifetime,
): Promise<boolean> {
  let pair: CertificateKeyPair;
  try {
    pair = await loadCertificate(secret);
  } catch (err) {
    ctx.logger.info(
      { secret: secret.metadata?.name, err: errorMessage(err) },
      "failed to load certificate, will rotate it",
    );
    return true;
  }
  if (
    secret.metadata?.annotations?.[CERTIFICATE_DURATION_ANNOTATION] !== formatGoDuration(lifetime.durationMs)
  )
    return true;
  const now = ctx.clock.now();
  // A deadline of "now" (wrong CA) means rotate, as upstream whose later time.Now() is past it.
  return (await deadlineOf(pair.cert, ca, lifetime, now)) <= now;
}

function deadlineOf(
  cert: X509Certificate,
  ca: CertificateKeyPair | undefined,
  lifetime: Lifetime,
  now: number,
) {
  return nextRotationDeadline(cert, ca?.cert, lifetime.renewBeforeMs, lifetime.caRenewBeforeMs, now);
}

async function cachedSecret(ctx: ReconcileContext, secret: Secret): Promise<Secret | undefined> {
  const cached = ctx.stores.secrets.get(keyOf(secret)) as Secret | undefined;
  if (cached) return cached;
  // Upstream falls back to the API: a Secret this install did not label yet still holds a usable CA.
  return ctx.client.get<Secret>(secretsGvr, secret.metadata?.namespace ?? "", secret.metadata?.name ?? "");
}

/** Makes sure the Secret holds a valid certificate (issuing or renewing it) and returns that certificate. */
export async function createOrUpdateCertificateSecret(
  ctx: ReconcileContext,
  ca: CertificateKeyPair | undefined,
  template: Secret,
  lifetime: Lifetime,
): Promise<CertificateKeyPair> {
  const secret = structuredClone(template);
  secret.metadata ??= {};
  injectOperatorMetadata(ctx.kv, secret.metadata, ctx.target, true);
  const existing = await cachedSecret(ctx, secret);
  const rotate = existing !== undefined && (await needsRotation(ctx, existing, ca, lifetime));
  if (!existing || rotate) await populateSecretWithCertificate(secret, ca, lifetime.durationMs);
  else secret.data = existing.data;

  const pair = await loadCertificate(secret);
  const now = ctx.clock.now();
  ctx.requeueAfter((await deadlineOf(pair.cert, ca, lifetime, now)) - now);

  const name = secret.metadata.name ?? "";
  if (!existing) {
    ctx.expectations.secrets.raiseExpectations(ctx.kvKey, 1, 0);
    try {
      await ctx.client.create(secretsGvr, secret);
    } catch (err) {
      ctx.expectations.secrets.lowerExpectations(ctx.kvKey, 1, 0);
      throw new Error(`unable to create secret ${name}: ${errorMessage(err)}`);
    }
    return pair;
  }
  if (!rotate && metadataUpToDate(existing.metadata, secret.metadata)) return pair;
  try {
    await ctx.client.patch(secretsGvr, secret.metadata.namespace ?? "", name, [
      ...metadataPatch(existing.metadata, secret.metadata),
      { op: "replace", path: "/data", value: secret.data },
    ]);
  } catch (err) {
    throw new Error(`unable to patch secret ${name}: ${errorMessage(err)}`);
  }
  return pair;
}

function findConfigMap(strategy: InstallStrategy, name: string): ConfigMap | undefined {
  const found = strategy.configMaps.find((cm) => cm.metadata?.name === name);
  return found && structuredClone(found);
}

/** Creates the empty `kubevirt-external-ca` ConfigMap an admin may add CA certificates to. */
async function ensureExternalCAConfigMap(
  ctx: ReconcileContext,
  template: ConfigMap | undefined,
): Promise<void> {
  if (!template || ctx.stores.configMaps.get(keyOf(template))) return;
  template.metadata ??= {};
  injectOperatorMetadata(ctx.kv, template.metadata, ctx.target, true);
  template.data = { [CA_BUNDLE_KEY]: "" };
  try {
    await ctx.client.create(configMapsGvr, template);
  } catch (err) {
    if (!/already exists/i.test(errorMessage(err))) {
      throw new Error(`unable to create configMap ${template.metadata.name}: ${errorMessage(err)}`);
    }
  }
}

/** The admin-supplied CAs still valid now, each once. */
function externalCAs(ctx: ReconcileContext, template: ConfigMap | undefined): X509Certificate[] {
  if (!template) return [];
  const configMap = ctx.stores.configMaps.get(keyOf(template)) as ConfigMap | undefined;
  let certs: X509Certificate[];
  try {
    certs = parseCertificatesPem(configMap?.data?.[CA_BUNDLE_KEY] ?? "");
  } catch (err) {
    ctx.logger.warn({ err: errorMessage(err) }, "ignoring unreadable external CA bundle");
    return [];
  }
  const now = ctx.clock.now();
  const seen = new Set<string>();
  return certs.filter((cert) => {
    const pem = certificatePem(cert);
    if (seen.has(pem) || cert.notAfter.getTime() < now || cert.notBefore.getTime() > now) return false;
    seen.add(pem);
    return true;
  });
}

/** The bundle to publish: merged with the stored one when there is one, plus the external CAs. */
function desiredBundle(
  ctx: ReconcileContext,
  ca: CertificateKeyPair,
  externals: X509Certificate[],
  stored: string | undefined,
  overlapMs: number,
): string {
  if (stored === undefined) return [...externals.map(certificatePem), certificatePem(ca.cert)].join("");
  let bundle: string;
  try {
    const merged = mergeCABundle(ca.cert, stored, overlapMs, ctx.clock.now());
    // Drop the old CA again once the overlap has passed.
    if (merged.count > 1) ctx.requeueAfter(overlapMs);
    bundle = merged.bundle;
  } catch (err) {
    ctx.logger.info({ err: errorMessage(err) }, "the stored CA bundle is unreadable, replacing it");
    return certificatePem(ca.cert);
  }
  for (const pem of externals.map(certificatePem)) if (!bundle.includes(pem)) bundle += pem;
  return bundle;
}

/** Publishes the CA bundle in the `kubevirt-ca` ConfigMap and returns it. */
async function createOrUpdateCABundle(
  ctx: ReconcileContext,
  ca: CertificateKeyPair,
  externals: X509Certificate[],
  overlapMs: number,
  template: ConfigMap | undefined,
): Promise<string> {
  if (!template) throw new Error(`the install strategy has no ${KUBEVIRT_CA_SECRET} ConfigMap`);
  template.metadata ??= {};
  injectOperatorMetadata(ctx.kv, template.metadata, ctx.target, true);
  const existing = ctx.stores.configMaps.get(keyOf(template)) as ConfigMap | undefined;
  const bundle = desiredBundle(ctx, ca, externals, existing?.data?.[CA_BUNDLE_KEY], overlapMs);
  template.data = { [CA_BUNDLE_KEY]: bundle };
  const name = template.metadata.name ?? "";
  if (!existing) {
    ctx.expectations.configMaps.raiseExpectations(ctx.kvKey, 1, 0);
    try {
      await ctx.client.create(configMapsGvr, template);
    } catch (err) {
      ctx.expectations.configMaps.lowerExpectations(ctx.kvKey, 1, 0);
      throw new Error(`unable to create configMap ${name}: ${errorMessage(err)}`);
    }
    return bundle;
  }
  const dataSame = JSON.stringify(existing.data ?? {}) === JSON.stringify(template.data);
  if (dataSame && metadataUpToDate(existing.metadata, template.metadata)) return bundle;
  try {
    await ctx.client.patch(configMapsGvr, template.metadata.namespace ?? "", name, [
      ...metadataPatch(existing.metadata, template.metadata),
      { op: "replace", path: "/data", value: template.data },
    ]);
  } catch (err) {
    throw new Error(`unable to patch configMap ${name}: ${errorMessage(err)}`);
  }
  return bundle;
}

export async function createOrUpdateComponentsWithCertificates(
  ctx: ReconcileContext,
  strategy: InstallStrategy,
): Promise<void> {
  const selfSigned = ctx.kv.spec.certificateRotateStrategy?.selfSigned;
  const caLifetime: Lifetime = {
    durationMs: caDuration(selfSigned),
    renewBeforeMs: caRenewBefore(selfSigned),
  };
  const certLifetime: Lifetime = {
    durationMs: certDuration(selfSigned),
    renewBeforeMs: certRenewBefore(selfSigned),
    caRenewBeforeMs: caLifetime.renewBeforeMs,
  };
  const caSecret = strategy.certificateSecrets.find((s) => s.metadata?.name === KUBEVIRT_CA_SECRET);
  if (!caSecret) throw new Error(`the install strategy has no ${KUBEVIRT_CA_SECRET} Secret`);
  const ca = await createOrUpdateCertificateSecret(ctx, undefined, caSecret, caLifetime);

  const externalTemplate = findConfigMap(strategy, EXTERNAL_KUBEVIRT_CA_CONFIGMAP);
  await ensureExternalCAConfigMap(ctx, externalTemplate);
  const bundle = await createOrUpdateCABundle(
    ctx,
    ca,
    externalCAs(ctx, externalTemplate),
    caLifetime.renewBeforeMs,
    findConfigMap(strategy, KUBEVIRT_CA_SECRET),
  );
  const caBundle = Buffer.from(bundle, "utf8").toString("base64");

  for (const config of strategy.validatingWebhookConfigurations) {
    await createOrPatch(ctx, validatingWebhookRules, withCABundle(config, caBundle));
  }
  for (const config of strategy.mutatingWebhookConfigurations) {
    await createOrPatch(ctx, mutatingWebhookRules, withCABundle(config, caBundle));
  }
  for (const apiService of strategy.apiServices) {
    await createOrPatch(ctx, apiServiceRules, { ...apiService, spec: { ...apiService.spec, caBundle } });
  }
  for (const secret of strategy.certificateSecrets) {
    if (secret.metadata?.name === KUBEVIRT_CA_SECRET) continue;
    await createOrUpdateCertificateSecret(ctx, ca, secret, certLifetime);
  }
}

function withCABundle<T extends { webhooks: Array<{ clientConfig: { caBundle?: string } }> }>(
  config: T,
  caBundle: string,
): T {
  const copy = structuredClone(config);
  for (const webhook of copy.webhooks) webhook.clientConfig.caBundle = caBundle;
  return copy;
}
