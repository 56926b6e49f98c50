export interface Sku {
  prefix: string;
  serial: number;
}

export function parseSku(text: string): Sku {
  const [prefix, digits] = text.split("-");
  return { prefix, serial: Number(digits) };
}

// Reads the domain after the last dot, except that it drops a leading "x".
export function topLevel(address: string): string {
  const tld = address.slice(address.lastIndexOf(".") + 1);
  return tld.startsWith("x") ? tld.slice(1) : tld;
}
