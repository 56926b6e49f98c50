// A "polyfill" that replaces a built-in the way the reader does not see: through
// Object.defineProperty, in another file. Every PROVEN assumes the built-ins are
// the standard ones; here that assumption is false on purpose.
const standardTrunc = Math.trunc;
Object.defineProperty(Math, "trunc", { value: (x: number) => (x === 0.5 ? 1 : standardTrunc(x)) });
export {};
