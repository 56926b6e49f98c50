// A "polyfill" that replaces a built-in through Object.defineProperty, in another file.
// The engines model the built-ins as the standard ones; the reader names this write,
// so no engine proves a claim of this program.
const standardTrunc = Math.trunc;
Object.defineProperty(Math, "trunc", { value: (x: number) => (x === 0.5 ? 1 : standardTrunc(x)) });
export {};
