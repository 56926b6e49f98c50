// Decoding the value encoding shared with Python (eutaxy.prover.values): JSON for
// plain values, and a tagged object for what JSON cannot say. A record whose
// own keys include "$" travels wrapped, so no user data is mistaken for a tag.
//
//   {"$": "bigint", "v": "-12"}      {"$": "number", "v": "NaN" | "Infinity" | "-Infinity" | "-0"}
//   {"$": "undefined"}               {"$": "object", "v": {...}}

export function decode(value) {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decode);
  if (Object.hasOwn(value, "$")) {
    switch (value.$) {
      case "bigint": return BigInt(value.v);
      case "number": return { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 }[value.v];
      case "undefined": return undefined;
      case "object": return decodeRecord(value.v);
      default: throw new Error(`unknown value tag ${JSON.stringify(value.$)}`);
    }
  }
  return decodeRecord(value);
}

function decodeRecord(record) {
  const out = {};
  for (const [k, v] of Object.entries(record)) out[k] = decode(v);
  return out;
}
