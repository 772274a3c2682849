// Kubernetes resource quantities ("500m", "2Gi", "1e3") as numbers of base units, enough for the
// downward API's resourceFieldRef arithmetic.

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

export function parseQuantity(value: string | number): number {
  if (typeof value === "number") return value;
  const match = QUANTITY.exec(value.trim());
  if (!match?.[1])
    throw new Error(`quantities must match the regular expression '${QUANTITY.source}': ${value}`);
  const base = Number(match[1]);
  if (Number.isNaN(base)) throw new Error(`invalid quantity: ${value}`);
  if (match[2]) return base * 10 ** Number(match[2].slice(1));
  return base * (SUFFIXES[match[3] ?? ""] ?? 1);
}
