// The common-instancetypes bundles upstream embeds in virt-operator
// (pkg/virt-operator/resource/generate/components/data/common-instancetypes/), rendered from the typed
// tables the operator deploys from, so the files show exactly what a cluster gets.
import type { GeneratedFile } from "../generated-file.js";
import { renderDocuments } from "../manifest-gen/index.js";
import {
  newClusterInstancetypes,
  newClusterPreferences,
} from "../../pkg/virt-operator/resource/generate/components/instancetypes.js";

export const BUNDLE_DIR = "pkg/virt-operator/resource/generate/components/data/common-instancetypes";
export const INSTANCETYPES_BUNDLE = `${BUNDLE_DIR}/common-clusterinstancetypes-bundle.yaml`;
export const PREFERENCES_BUNDLE = `${BUNDLE_DIR}/common-clusterpreferences-bundle.yaml`;

export function generateCommonInstancetypesBundles(): GeneratedFile[] {
  return [
    { path: INSTANCETYPES_BUNDLE, content: renderDocuments(newClusterInstancetypes()) },
    { path: PREFERENCES_BUNDLE, content: renderDocuments(newClusterPreferences()) },
  ];
}
