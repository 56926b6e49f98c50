import { forall } from "eutaxy/spec";
import { callsLet, callsOut, generic, hidden, loops, mutates, usesMethod } from "./domain.ts";

export const loopsGrow = forall(loops, { ensures: (n) => loops(n) >= n || Number.isNaN(n) });
export const mutatesGrow = forall(mutates, { ensures: (n) => mutates(n) > n || !Number.isFinite(n) });
export const callsOutGrow = forall(callsOut, { ensures: (n) => callsOut(n) !== n });
export const trims = forall(usesMethod, { ensures: (s) => usesMethod(s).length <= s.length });
export const identity = forall(generic<number>, { ensures: (n) => generic(n) === n || Number.isNaN(n) });
export const hiddenIsUndefined = forall(hidden, { ensures: (n) => hidden(n) === hidden(n) });
export const callsLetGrow = forall(callsLet, { ensures: (n) => callsLet(n) !== n });
