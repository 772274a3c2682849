import { describe, expect, it } from "vitest";
import {
  buildArgs,
  failedStep,
  locateInstruction,
  parseImageInspect,
  stepImageIds,
  storageArgs,
} from "./buildah.js";

const ID = "83227268c30bb4d3b32e9425047ac3491421b8974994b249564e8999e5ac0aea";

describe("storageArgs", () => {
  it("puts the storage in the given folders, on overlay", () => {
    expect(storageArgs({ root: "/c/buildah/storage", runroot: "/c/buildah/run" })).toEqual([
      "--root",
      "/c/buildah/storage",
      "--runroot",
      "/c/buildah/run",
      "--storage-driver",
      "overlay",
    ]);
  });
});

describe("buildArgs", () => {
  const spec = {
    dockerfile: "/src/Dockerfile.virt-api",
    context: "/src",
    image: "localhost/kubevirt-ts/virt-api:devel",
    buildArgs: {
      NODE_IMAGE: "localhost/kubevirt-ts/node-base:20-bookworm",
      KUBEVIRT_TS_VERSION: "v0.1.0",
    },
    secrets: [{ id: "build-ca", src: "/etc/ssl/certs/ca-certificates.crt" }],
  };

  it("builds with chroot isolation, never pulling, with the layer cache, the context last", () => {
    expect(buildArgs(spec)).toEqual([
      "build",
      "--isolation",
      "chroot",
      "--pull=never",
      "--layers",
      "-f",
      "/src/Dockerfile.virt-api",
      "-t",
      "localhost/kubevirt-ts/virt-api:devel",
      "--build-arg",
      "KUBEVIRT_TS_VERSION=v0.1.0",
      "--build-arg",
      "NODE_IMAGE=localhost/kubevirt-ts/node-base:20-bookworm",
      "--secret",
      "id=build-ca,src=/etc/ssl/certs/ca-certificates.crt",
      "/src",
    ]);
  });

  it("builds every step again when told, and passes no secret when there is none", () => {
    const args = buildArgs({ ...spec, secrets: [], noCache: true });
    expect(args).toContain("--no-cache");
    expect(args).not.toContain("--secret");
  });

  it("keeps a build argument's value whole (spaces, '=')", () => {
    const args = buildArgs({ ...spec, buildArgs: { X: "a b=c" }, secrets: [] });
    expect(args.slice(args.indexOf("--build-arg"), args.indexOf("--build-arg") + 2)).toEqual([
      "--build-arg",
      "X=a b=c",
    ]);
  });
});

describe("parseImageInspect", () => {
  // as buildah 1.28 prints it, trimmed to the fields read
  const inspected = {
    Type: "buildah 0.0.1",
    FromImage: "localhost/kubevirt-ts/virt-launcher:devel",
    FromImageID: ID,
    OCIv1: {
      created: "2026-12-07T15:26:33.359664386Z",
      architecture: "amd64",
      os: "linux",
      config: {
        User: "107",
        Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
        Entrypoint: ["/usr/bin/virt-launcher"],
        Labels: { "io.buildah.version": "1.28.2" },
      },
    },
    Docker: { config: { User: "ignored" } },
  };

  it("reads the image ID and the run fields of its OCI config, absent ones empty", () => {
    expect(parseImageInspect(JSON.stringify(inspected))).toEqual({
      id: ID,
      created: "2026-12-07T15:26:33.359664386Z",
      config: {
        Entrypoint: ["/usr/bin/virt-launcher"],
        Cmd: [],
        User: "107",
        Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
        WorkingDir: "",
      },
    });
  });

  it("reads null fields as empty", () => {
    const config = { Entrypoint: null, Cmd: ["node"], WorkingDir: "/src", User: null, Env: null };
    expect(parseImageInspect(JSON.stringify({ ...inspected, OCIv1: { config } })).config).toEqual({
      Entrypoint: [],
      Cmd: ["node"],
      User: "",
      Env: [],
      WorkingDir: "/src",
    });
  });

  it("refuses what is not an image's inspection", () => {
    expect(() => parseImageInspect("Error: no such image")).toThrow(/no JSON/);
    expect(() => parseImageInspect(JSON.stringify({ ...inspected, FromImageID: "" }))).toThrow(/FromImageID/);
    const badCmd = { ...inspected, OCIv1: { config: { Cmd: "node" } } };
    expect(() => parseImageInspect(JSON.stringify(badCmd))).toThrow(/config.Cmd/);
  });
});

const BUILD_OUTPUT = `[1/2] STEP 1/10: FROM localhost/kubevirt-ts/node-base:20-bookworm AS build
[1/2] STEP 2/10: WORKDIR /src
--> Using cache 716213a7d74a866bd895408ea3bdbb2193ef803f251785b5f9e68be00bf7c312
--> 716213a7d74
[1/2] STEP 5/10: COPY . .
--> d829af8bc11
[components] bundled 1 in 2.2s
[2/2] STEP 4/4: COPY --from=build /out/ /
[2/2] COMMIT localhost/kubevirt-ts/virt-api:devel
--> a1ec92c9d21
Successfully tagged localhost/kubevirt-ts/virt-api:devel
a1ec92c9d21c0fe0cb3e8d71d8c5e7b8a9e0e57ad0a1d3f6c36b9d81d1cb6b70
`;

describe("stepImageIds", () => {
  it("lists the image of every step, cached or new, and the final image", () => {
    expect(stepImageIds(BUILD_OUTPUT)).toEqual([
      "716213a7d74a866bd895408ea3bdbb2193ef803f251785b5f9e68be00bf7c312",
      "716213a7d74",
      "d829af8bc11",
      "a1ec92c9d21",
      "a1ec92c9d21c0fe0cb3e8d71d8c5e7b8a9e0e57ad0a1d3f6c36b9d81d1cb6b70",
    ]);
  });
});

const DOCKERFILE = `ARG NODE_IMAGE=node:20-bookworm-slim
FROM \${NODE_IMAGE} AS native
# a comment
RUN command -v gcc >/dev/null \\
    || { apt-get update && apt-get install -y gcc; }
COPY cmd /src/cmd
RUN mkdir -p /native/usr/bin \\
    && for binary in container-disk virt-tail; do \\
         gcc -static -Os -Wall -o "/native/usr/bin/$binary" "/src/cmd/$binary/main.c" || exit 1; \\
       done
RUN mkdir -p /other
USER 107
`;

describe("failedStep and locateInstruction", () => {
  const failure = `[2/3] STEP 6/6: RUN mkdir -p /native/usr/bin     && for binary in container-disk virt-tail; do          gcc -static -Os -Wall -o "/native/usr/bin/$binary" "/src/cmd/$binary/main.c" || exit 1;        done
/src/cmd/virt-tail/main.c:34:10: fatal error: ../../pkg/native/kvlog.h: No such file or directory
subprocess exited with status 1
Error: building at STEP "RUN mkdir -p /native/usr/bin     && for binary in container-disk virt-tail; do          gcc -static -Os -Wall -o "/native/usr/bin/$binary" "/src/cmd/$binary/main.c" || exit 1;        done": exit status 1
`;

  it("finds the failed instruction and buildah's reason in its output", () => {
    expect(failedStep(failure)).toEqual({
      instruction:
        'RUN mkdir -p /native/usr/bin     && for binary in container-disk virt-tail; do          gcc -static -Os -Wall -o "/native/usr/bin/$binary" "/src/cmd/$binary/main.c" || exit 1;        done',
      reason: "exit status 1",
    });
    expect(failedStep("Error: creating build container: image not known\n")).toBeUndefined();
  });

  it("finds the Dockerfile line an instruction with continuation lines starts on", () => {
    const step = failedStep(failure);
    expect(step && locateInstruction(DOCKERFILE, step.instruction)).toBe(7);
    expect(
      locateInstruction(
        DOCKERFILE,
        "RUN command -v gcc >/dev/null     || { apt-get update && apt-get install -y gcc; }",
      ),
    ).toBe(4);
  });

  it("prefers the line that matches most, and finds nothing for an instruction the file lacks", () => {
    expect(locateInstruction(DOCKERFILE, "RUN mkdir -p /other")).toBe(11);
    expect(locateInstruction(DOCKERFILE, "COPY --from=build /out/ /")).toBeUndefined();
    expect(locateInstruction(DOCKERFILE, "")).toBeUndefined();
  });
});
