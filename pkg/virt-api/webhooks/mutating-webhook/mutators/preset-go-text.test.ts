import { describe, expect, it } from "vitest";
import {
  ClockOffsetType,
  CPUType,
  FeaturesType,
  GoAddress,
  goQuantitiesIdentical,
  goQuantityText,
  goText,
  IOThreadsPolicyType,
  WatchdogType,
} from "./preset-go-text.js";

describe("Go's %v of preset settings", () => {
  it("prints a pointer to a struct as &{fields in declaration order}, nested pointers as addresses", () => {
    expect(goText(CPUType, { cores: 2, model: "host-passthrough", features: [{ name: "vmx" }] })).toBe(
      "&{2 0 0 0 host-passthrough [{vmx }] false <nil> false <nil>}",
    );
    expect(goText(CPUType, { sockets: 1, numa: { guestMappingPassthrough: {} } })).toBe(
      `&{0 1 0 0  [] false ${GoAddress} false <nil>}`,
    );
    expect(goText(FeaturesType, { acpi: {}, smm: { enabled: true } })).toBe(
      `&{{<nil>} <nil> <nil> <nil> ${GoAddress} <nil> <nil>}`,
    );
  });

  it("gives embedded structs their own braces and values no &", () => {
    expect(goText(WatchdogType, { name: "wd", i6300esb: { action: "poweroff" } })).toBe(
      `&{wd {${GoAddress} <nil>}}`,
    );
    expect(goText(ClockOffsetType, { utc: undefined, timezone: undefined })).toBe("{<nil> <nil>}");
    expect(goText(IOThreadsPolicyType, "shared")).toBe(GoAddress);
  });

  it("prints a Quantity's fields, keeping the text only where ParseQuantity keeps it", () => {
    expect(goQuantityText("64M")).toBe("{{64 6} {<nil>} 64M DecimalSI}");
    expect(goQuantityText("1Gi")).toBe("{{1073741824 0} {<nil>} 1Gi BinarySI}");
    expect(goQuantityText("128Mi")).toBe("{{134217728 0} {<nil>}  BinarySI}");
    expect(goQuantityText("0")).toBe("{{0 0} {<nil>} 0 DecimalSI}");
    expect(goQuantityText("1.5")).toBe("{{15 -1} {<nil>}  DecimalSI}");
    expect(goQuantityText("2e3")).toBe("{{2 3} {<nil>} 2e3 DecimalExponent}");
    expect(goQuantityText("1.5Gi")).toBe(`{{0 0} {${GoAddress}}  BinarySI}`);
  });

  it("compares quantities as Go's == does", () => {
    expect(goQuantitiesIdentical("1Gi", "1Gi")).toBe(true);
    expect(goQuantitiesIdentical("1Gi", "1024Mi")).toBe(false);
    expect(goQuantitiesIdentical("128Mi", "128Mi")).toBe(true);
    expect(goQuantitiesIdentical("1.5Gi", "1.5Gi")).toBe(false);
  });
});
