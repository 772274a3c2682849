// One segment of a request path (a namespace or object name), percent-decoded; undefined when it is empty,
// holds a slash once decoded, or is not valid percent-encoding. virt-api and virt-handler route alike.
export function decodePathSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded === "" || decoded.includes("/") ? undefined : decoded;
  } catch {
    return undefined;
  }
}
