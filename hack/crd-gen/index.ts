// Renders every kubevirt CRD to `manifests/generated/crds/<plural>.<group>.yaml`, keys sorted so the
// output is stable across runs and reads like upstream's generated manifests.
import type { GeneratedFile } from "../generated-file.js";
import { renderYaml } from "../render-yaml.js";
import { allCustomResourceDefinitions } from "../../pkg/virt-operator/resource/generate/components/crds.js";
import type { CustomResourceDefinition } from "../../pkg/virt-operator/resource/generate/components/crds.js";

export const CRD_OUTPUT_DIR = "manifests/generated/crds";

export function renderCrd(crd: CustomResourceDefinition): string {
  return renderYaml(crd);
}

export function generateCrdFiles(swagger: unknown): GeneratedFile[] {
  return allCustomResourceDefinitions(swagger).map((crd) => ({
    path: `${CRD_OUTPUT_DIR}/${crd.metadata.name}.yaml`,
    content: renderCrd(crd),
  }));
}
