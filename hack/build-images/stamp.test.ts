import { describe, expect, it } from "vitest";
import { baseIsCurrent, baseStamp, exportIsCurrent, parseBaseStampFile, type BaseInputs } from "./stamp.js";

const INPUTS: BaseInputs = {
  recipe: "// the recipe\n",
  nodeVersion: "v20.20.2",
  nodePackageVersion: "20.20.2-1nodesource1+repack1",
  npmVersion: "11.19.1",
};
const ID = "1a82843d3d50".padEnd(64, "0");

describe("baseStamp", () => {
  it("is a hash of the recipe and the node it copies, whatever the order of the fields", () => {
    const reordered = {
      npmVersion: INPUTS.npmVersion,
      nodePackageVersion: INPUTS.nodePackageVersion,
      nodeVersion: INPUTS.nodeVersion,
      recipe: INPUTS.recipe,
    };
    expect(baseStamp(INPUTS)).toMatch(/^[0-9a-f]{64}$/);
    expect(baseStamp(reordered)).toBe(baseStamp(INPUTS));
  });

  it("changes with each input", () => {
    const stamps = new Set([
      baseStamp(INPUTS),
      baseStamp({ ...INPUTS, recipe: "// another recipe\n" }),
      baseStamp({ ...INPUTS, nodeVersion: "v20.20.3" }),
      baseStamp({ ...INPUTS, nodePackageVersion: "20.20.3-1nodesource1" }),
      baseStamp({ ...INPUTS, npmVersion: "11.20.0" }),
    ]);
    expect(stamps.size).toBe(5);
  });

  it("does not let one field's text pass for another's", () => {
    expect(baseStamp({ ...INPUTS, recipe: "a", nodeVersion: "b" })).not.toBe(
      baseStamp({ ...INPUTS, recipe: "a\0nodeVersion\0b", nodeVersion: "" }),
    );
  });
});

describe("the base image's stamp file", () => {
  const file = {
    stamp: baseStamp(INPUTS),
    image: "localhost/kubevirt-ts/node-base:20-bookworm",
    imageID: ID,
  };

  it("reads what was written, and nothing from a missing or broken file", () => {
    expect(parseBaseStampFile(JSON.stringify(file))).toEqual(file);
    expect(parseBaseStampFile(undefined)).toBeUndefined();
    expect(parseBaseStampFile("{")).toBeUndefined();
    expect(parseBaseStampFile(JSON.stringify({ stamp: "x" }))).toBeUndefined();
  });

  it("is current only with the same inputs, the same name and the image still stored", () => {
    expect(baseIsCurrent(file, file.stamp, file.image, ID)).toBe(true);
    expect(baseIsCurrent(file, baseStamp({ ...INPUTS, npmVersion: "12" }), file.image, ID)).toBe(false);
    expect(baseIsCurrent(file, file.stamp, "localhost/kubevirt-ts/node-base:22-bookworm", ID)).toBe(false);
    // the storage lost the image, or the name now points at another one
    expect(baseIsCurrent(file, file.stamp, file.image, undefined)).toBe(false);
    expect(baseIsCurrent(file, file.stamp, file.image, "f".repeat(64))).toBe(false);
    expect(baseIsCurrent(undefined, file.stamp, file.image, ID)).toBe(false);
  });
});

describe("exportIsCurrent", () => {
  it("holds when the export's image-id names the image", () => {
    expect(exportIsCurrent(`${ID}\n`, ID)).toBe(true);
    expect(exportIsCurrent(undefined, ID)).toBe(false);
    expect(exportIsCurrent("f".repeat(64), ID)).toBe(false);
  });
});
