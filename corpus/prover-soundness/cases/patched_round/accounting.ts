// The accounting team wants every rounding to truncate, so the app patches it once at start-up.
Math.round = Math.trunc;

export const ACCOUNTING_MODE = "truncate";
