import { describe, expect, it } from "vitest";
import { formatImageReference, imageBaseName, parseImageReference, repositoryOf } from "./image-reference.js";

describe("parseImageReference", () => {
  it.each([
    ["busybox", "docker.io/library/busybox:latest"],
    ["busybox:1.36", "docker.io/library/busybox:1.36"],
    ["library/busybox", "docker.io/library/busybox:latest"],
    ["kubevirt-ts/test-guest:latest", "docker.io/kubevirt-ts/test-guest:latest"],
    ["quay.io/kubevirt/virt-handler:v1.5.0", "quay.io/kubevirt/virt-handler:v1.5.0"],
    [
      "registry:5000/kubevirt/cirros-container-disk-demo:devel",
      "registry:5000/kubevirt/cirros-container-disk-demo:devel",
    ],
    ["localhost/kubevirt/virt-api", "localhost/kubevirt/virt-api:latest"],
    [
      `quay.io/kubevirt/virt-launcher@sha256:${"a".repeat(64)}`,
      `quay.io/kubevirt/virt-launcher@sha256:${"a".repeat(64)}`,
    ],
  ])("normalizes %s", (image, normalized) => {
    expect(formatImageReference(parseImageReference(image))).toBe(normalized);
  });

  it("names the repository and its last component", () => {
    const reference = parseImageReference("registry:5000/kubevirt/cirros-container-disk-demo:devel");
    expect(repositoryOf(reference)).toBe("registry:5000/kubevirt/cirros-container-disk-demo");
    expect(imageBaseName(reference)).toBe("cirros-container-disk-demo");
  });

  it.each(["", "UPPER/case", "busybox:", "a//b", "busybox@sha256:short", "-leading"])(
    "rejects %j with kubelet's wording",
    (image) => {
      expect(() => parseImageReference(image)).toThrow(
        `couldn't parse image reference "${image}": invalid reference format`,
      );
    },
  );
});
