// The top-level kinds of the API: every collection path `/apis/<group>/<version>/[namespaces/{namespace}/]<plural>`
// with the definitions its operations answer with (the object and its List).
import { refTarget } from "./names.js";
import { responseRefs } from "./swagger.js";
import type { SwaggerDocument } from "./swagger.js";

export interface TopLevelKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  definition: string;
  listDefinition: string;
}

const COLLECTION_PATH = /^\/apis\/([^/]+)\/([^/]+)\/(namespaces\/\{namespace\}\/)?([^/{}]+)$/;
const STATUS_DEFINITION = "k8s.io.apimachinery.pkg.apis.meta.v1.Status";

export function topLevelKinds(doc: SwaggerDocument): TopLevelKind[] {
  const byKey = new Map<string, TopLevelKind>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    const match = COLLECTION_PATH.exec(path);
    if (match === null) continue;
    const [, group = "", version = "", namespacedSegment, plural = ""] = match;
    const targets = new Set(Object.values(operations).flatMap(responseRefs).map(refTarget));
    targets.delete(STATUS_DEFINITION);
    const listDefinition = [...targets].find((t) => t.endsWith("List"));
    const definition = [...targets].find((t) => !t.endsWith("List"));
    if (listDefinition === undefined || definition === undefined) continue;
    const key = `${group}/${version}/${plural}`;
    const known = byKey.get(key);
    const namespaced = namespacedSegment !== undefined || (known?.namespaced ?? false);
    const kind = definition.slice(definition.lastIndexOf(".") + 1);
    byKey.set(key, { group, version, kind, plural, namespaced, definition, listDefinition });
  }
  return [...byKey.values()].sort((a, b) => compareKeys(a, b));
}

function compareKeys(a: TopLevelKind, b: TopLevelKind): number {
  const left = `${a.group}/${a.version}/${a.plural}`;
  const right = `${b.group}/${b.version}/${b.plural}`;
  return left < right ? -1 : left > right ? 1 : 0;
}
