// The release manifests: manifests/release/kubevirt-operator.yaml (namespace, KubeVirt CRD, priority
// class, operator RBAC and Deployment) and manifests/release/kubevirt-cr.yaml (the KubeVirt CR), for images
// `<registry>/virt-<component>:<tag>`. The committed files use the defaults and upstream's CR; the local
// cluster has no KVM, so it generates its CR with `useEmulation` (CLI: --use-emulation) into its own state
// directory instead of editing the committed one.
import type { GeneratedFile } from "../generated-file.js";
import { renderYaml } from "../render-yaml.js";
import {
  newKubeVirtCR,
  operatorManifestObjects,
  type ReleaseOptions,
} from "../../pkg/virt-operator/resource/generate/components/release.js";
import { loadSwagger } from "../../pkg/virt-operator/util/swagger.js";

export const DEFAULT_REGISTRY = "kubevirt-ts.local";
export const DEFAULT_TAG = "devel";
export const RELEASE_DIR = "manifests/release";
export const OPERATOR_MANIFEST = `${RELEASE_DIR}/kubevirt-operator.yaml`;
export const CR_MANIFEST = `${RELEASE_DIR}/kubevirt-cr.yaml`;

export interface ManifestOptions {
  registry: string;
  tag: string;
  useEmulation?: boolean;
  namespace?: string;
  /** Upstream's OpenAPI document; read from api/openapi-spec/swagger.json when left out. */
  swagger?: unknown;
}

/** YAML documents, each introduced by `---` as upstream's release files are. */
export function renderDocuments(objects: readonly unknown[]): string {
  return objects.map((o) => `---\n${renderYaml(o)}`).join("");
}

export function generateReleaseManifests(opts: ManifestOptions): GeneratedFile[] {
  const release: ReleaseOptions = {
    namespace: opts.namespace ?? "kubevirt",
    registry: opts.registry,
    tag: opts.tag,
    pullPolicy: "IfNotPresent",
    verbosity: "2",
    useEmulation: opts.useEmulation ?? false,
  };
  const swagger = opts.swagger ?? loadSwagger();
  return [
    { path: OPERATOR_MANIFEST, content: renderDocuments(operatorManifestObjects(release, swagger)) },
    { path: CR_MANIFEST, content: renderDocuments([newKubeVirtCR(release)]) },
  ];
}
