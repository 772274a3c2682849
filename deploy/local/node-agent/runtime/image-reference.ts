// Docker image references, normalized the way containerd does before a pull: `busybox` is
// `docker.io/library/busybox:latest`, `quay.io/kubevirt/virt-handler:v1.5.0` stays as it is.

export interface ImageReference {
  /** Registry host, e.g. docker.io or registry:5000. */
  domain: string;
  /** Repository path inside the registry, e.g. library/busybox. */
  path: string;
  tag?: string;
  digest?: string;
}

export class InvalidImageReferenceError extends Error {
  override readonly name = "InvalidImageReferenceError";
  constructor(readonly image: string) {
    super(`couldn't parse image reference "${image}": invalid reference format`);
  }
}

const DEFAULT_DOMAIN = "docker.io";
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;

function looksLikeDomain(component: string): boolean {
  return component.includes(".") || component.includes(":") || component === "localhost";
}

export function parseImageReference(image: string): ImageReference {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new InvalidImageReferenceError(image);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new InvalidImageReferenceError(image);
  }
  const parts = rest.split("/");
  let domain = DEFAULT_DOMAIN;
  if (parts.length > 1 && looksLikeDomain(parts[0] as string)) domain = parts.shift() as string;
  if (domain === DEFAULT_DOMAIN && parts.length === 1) parts.unshift("library");
  if (parts.length === 0 || !parts.every((part) => PATH_COMPONENT.test(part))) {
    throw new InvalidImageReferenceError(image);
  }
  const reference: ImageReference = { domain, path: parts.join("/") };
  if (tag === undefined && digest === undefined) reference.tag = "latest";
  if (tag !== undefined) reference.tag = tag;
  if (digest !== undefined) reference.digest = digest;
  return reference;
}

/** `domain/path`, e.g. docker.io/library/busybox. */
export function repositoryOf(reference: ImageReference): string {
  return `${reference.domain}/${reference.path}`;
}

/** The last path component, e.g. virt-handler for quay.io/kubevirt/virt-handler. */
export function imageBaseName(reference: ImageReference): string {
  return reference.path.slice(reference.path.lastIndexOf("/") + 1);
}

export function formatImageReference(reference: ImageReference): string {
  return `${repositoryOf(reference)}${reference.tag !== undefined ? `:${reference.tag}` : ""}${
    reference.digest !== undefined ? `@${reference.digest}` : ""
  }`;
}
