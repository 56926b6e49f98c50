// An old "compat" layer: Math.floor rounds to nearest, and a global rate other code reads.
Object.assign(Math, { floor: (x: number): number => Math.round(x) });
(globalThis as { serviceRate?: number }).serviceRate = 0.1;

export const POLYFILLED = true;
