import { describe, expect, it } from "vitest";
import { exportName, exportRecord, isStaging, mountSourcesOf, removableExports } from "./export.js";

const ID = "afef337907a9".padEnd(64, "1");
const OLD = "95414d51eec4".padEnd(64, "2");

describe("exportRecord", () => {
  it("is the image's name and ID and the run fields of its config", () => {
    const config = {
      Entrypoint: ["/usr/bin/virt-handler"],
      Cmd: [],
      User: "",
      Env: ["PATH=/usr/bin"],
      WorkingDir: "",
    };
    expect(
      exportRecord("localhost/kubevirt-ts/virt-handler:devel", {
        id: ID,
        created: "2026-12-07T15:26:33Z",
        config,
      }),
    ).toEqual({
      image: "localhost/kubevirt-ts/virt-handler:devel",
      imageID: ID,
      created: "2026-12-07T15:26:33Z",
      config,
    });
  });
});

describe("exportName", () => {
  it("names an export after its component and the start of its image ID", () => {
    expect(exportName("virt-handler", ID)).toBe("virt-handler-afef337907a9");
  });
});

describe("removableExports", () => {
  const dir = "/cache/images/components/.exports";
  const entries = [
    exportName("virt-handler", ID),
    exportName("virt-handler", OLD),
    exportName("virt-handler", "c".repeat(64)),
    exportName("virt-api", OLD),
    `${exportName("virt-handler", OLD)}.tmp-123`,
  ];

  it("keeps the current export, other components' and what is no export of this component", () => {
    expect(removableExports("virt-handler", entries, exportName("virt-handler", ID), dir, [])).toEqual([
      "virt-handler-95414d51eec4",
      "virt-handler-cccccccccccc",
    ]);
  });

  it("keeps an export a mount names: an overlay's lowerdir, a bind mount's source below it", () => {
    const mounts = [`${dir}/virt-handler-95414d51eec4/rootfs`, `${dir}/virt-handler-cccccccccccc`];
    expect(removableExports("virt-handler", entries, exportName("virt-handler", ID), dir, mounts)).toEqual(
      [],
    );
    // a name that merely starts alike does not count
    expect(
      removableExports("virt-handler", entries, exportName("virt-handler", ID), dir, [
        `${dir}/virt-handler-95414d51eec4x`,
      ]),
    ).toEqual(["virt-handler-95414d51eec4", "virt-handler-cccccccccccc"]);
  });
});

describe("mountSourcesOf", () => {
  const mountinfo = [
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
    // an overlay over an export, as the node agent mounts a container's root (two lower layers, an escaped space)
    "812 22 0:91 / /var/lib/pods/x/root rw,relatime - overlay overlay rw,lowerdir=/cache/images/components/.exports/virt-api-a1ec92c9d21c/rootfs:/lower\\040two,upperdir=/s/upper,workdir=/s/work",
    // a bind mount: the source is the mount's root within its filesystem
    "813 22 254:0 /cache/images/components/.exports/virt-handler-afef337907a9/rootfs /mnt/bound rw - ext4 /dev/vda rw",
    "",
  ].join("\n");

  it("lists mount points, bind sources and overlay lower directories", () => {
    expect(mountSourcesOf(mountinfo)).toEqual([
      "/",
      "/var/lib/pods/x/root",
      "/cache/images/components/.exports/virt-api-a1ec92c9d21c/rootfs",
      "/lower two",
      "/mnt/bound",
      "/cache/images/components/.exports/virt-handler-afef337907a9/rootfs",
    ]);
  });
});

describe("isStaging", () => {
  it("knows the names exports and links are staged under", () => {
    expect(isStaging("virt-api-a1ec92c9d21c.tmp-4242")).toBe(true);
    expect(isStaging("virt-api-a1ec92c9d21c.old-4242")).toBe(true);
    expect(isStaging("virt-api.link-4242")).toBe(true);
    expect(isStaging("virt-api-a1ec92c9d21c")).toBe(false);
    expect(isStaging("virt-api")).toBe(false);
  });
});
