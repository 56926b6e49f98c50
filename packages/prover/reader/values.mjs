// The value encoding shared with Python (eutaxy.prover.values): JSON for
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

export function encode(value, depth = 0) {
  if (depth > 32) return { $: "unencodable", v: "nested too deep" };
  switch (typeof value) {
    case "bigint": return { $: "bigint", v: value.toString() };
    case "undefined": return { $: "undefined" };
    case "number":
      if (Number.isNaN(value)) return { $: "number", v: "NaN" };
      if (value === Infinity) return { $: "number", v: "Infinity" };
      if (value === -Infinity) return { $: "number", v: "-Infinity" };
      if (Object.is(value, -0)) return { $: "number", v: "-0" };
      return value;
    case "string": case "boolean": return value;
    case "object": {
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((v) => encode(v, depth + 1));
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = encode(v, depth + 1);
      return Object.hasOwn(out, "$") ? { $: "object", v: out } : out;
    }
    default: return { $: "unencodable", v: typeof value };
  }
}
