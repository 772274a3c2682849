// The `kubevirt-ca` ConfigMap informer behind virt-handler's client CA, shared by the console server (virt-api's
// client certificate) and the migration proxies (the other handlers' certificates).
import { coreGVR, resourceInformer, type KubeClient, type Logger } from "../controller/index.js";
import { CAManager, type ConfigMapObject } from "../util/tls/ca-manager.js";
import { KUBEVIRT_CA_CONFIGMAP } from "../util/tls/tls.js";

/** The `kubevirt-ca` ConfigMap behind every client CA of the handler (console and migration); run it until the signal aborts. */
export function kubevirtCA(
  client: KubeClient,
  namespace: string,
  caConfigMapName: string | undefined,
  logger: Logger,
): { caManager: CAManager; run(signal: AbortSignal): Promise<void> } {
  const caName = caConfigMapName ?? KUBEVIRT_CA_CONFIGMAP;
  const configMaps = resourceInformer<ConfigMapObject>(client, coreGVR.configMaps, {
    namespace,
    fieldSelector: `metadata.name=${caName}`,
    logger,
  });
  const caManager = new CAManager(configMaps, namespace, caName, (message) =>
    logger.error({ reason: message }, "Failed to get kubevirt CA"),
  );
  return { caManager, run: (signal) => configMaps.run(signal) };
}
