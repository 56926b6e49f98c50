// Types for eutaxy/spec. The claim's arrows are typed by the parameters of
// the function under test, so a spec that does not match its function (too
// many parameters, a parameter used as the wrong type, a claim that is not a
// boolean) fails the user's own tsc.

/** What the TESTED rung may draw; it limits the draws, never the claim. */
export interface Sample {
  /** Longest array drawn (the default is sixteen). */
  readonly maxArrayLength?: number;
  /** Longest string drawn, in UTF-16 code units (the default is eight). */
  readonly maxStringLength?: number;
  /** Largest domain enumerated whole before any random draw (the default is 4096; 0 never enumerates). */
  readonly maxEnumerate?: number;
}

export interface ForallOptions<F extends (...args: any[]) => any> {
  /** The precondition: inputs where it is false are outside the claim. */
  readonly when?: (...args: Parameters<F>) => boolean;
  /** The claim, evaluated only where `when` holds. */
  readonly ensures: (...args: Parameters<F>) => boolean;
  readonly sample?: Sample;
  /** Real time one evaluation may take, in milliseconds (the default is five seconds); a call
   * that runs longer ends the TESTED rung as UNKNOWN (gave_up), naming the input. */
  readonly timeoutMs?: number;
  /** Custom generators, one per parameter (`undefined` keeps the type's own draws). */
  readonly inputs?: Gens<Parameters<F>>;
}

/** One optional generator per parameter. */
export type Gens<P extends readonly unknown[]> = { readonly [K in keyof P]?: Gen<P[K]> };

/** Plain data the TESTED rung draws from; build one with `gen`. */
export interface Gen<T> {
  readonly gen: "integer" | "number" | "oneOf" | "string" | "array" | "record" | "map" | "filter";
  /** Phantom: the type of the values drawn. */
  readonly __values?: T;
}

export declare const gen: {
  integer(lo: number, hi: number): Gen<number>;
  number(lo: number, hi: number): Gen<number>;
  oneOf<const V extends readonly (number | string | boolean | null)[]>(...values: V): Gen<V[number]>;
  string(limits?: { minLength?: number; maxLength?: number }): Gen<string>;
  array<T>(of: Gen<T>, limits?: { minLength?: number; maxLength?: number }): Gen<T[]>;
  record<R extends Record<string, unknown>>(fields: { readonly [K in keyof R]: Gen<R[K]> }): Gen<R>;
  map<T, U>(of: Gen<T>, fn: (value: T) => U): Gen<U>;
  filter<T>(of: Gen<T>, pred: (value: T) => boolean): Gen<T>;
};

export declare function isGenerator(value: unknown): value is Gen<unknown>;

export interface ForallProperty<F extends (...args: any[]) => any> {
  readonly kind: "forall";
  readonly f: F;
  readonly when: ((...args: Parameters<F>) => boolean) | undefined;
  readonly ensures: (...args: Parameters<F>) => boolean;
  readonly sample: Sample | undefined;
  readonly timeoutMs: number | undefined;
  readonly inputs: Gens<Parameters<F>> | undefined;
}

export interface TotalProperty<F extends (...args: any[]) => any> {
  readonly kind: "total";
  readonly f: F;
}

/** A spec file's export; a release may add kinds, so switch with a default. */
export type Property<F extends (...args: any[]) => any = (...args: any[]) => any> =
  | ForallProperty<F>
  | TotalProperty<F>;

export declare const PROPERTY: unique symbol;

export declare function forall<F extends (...args: any[]) => any>(
  f: F,
  options: ForallOptions<F>,
): ForallProperty<F>;

export declare function total<F extends (...args: any[]) => any>(f: F): TotalProperty<F>;

export declare function isProperty(value: unknown): value is Property;

// ---------------------------------------------------------------------------
// SpecIR and verdicts as JSON, for tools that read `eutaxy report --json`.
// A release may add a kind to any of these unions, so switch with a default.

/** A value in the report's encoding: JSON plus tags for what JSON cannot say. */
export type EncodedValue =
  | null | boolean | number | string
  | { readonly $: "bigint"; readonly v: string }
  | { readonly $: "number"; readonly v: "NaN" | "Infinity" | "-Infinity" | "-0" }
  | { readonly $: "undefined" }
  | { readonly $: "object"; readonly v: { readonly [key: string]: EncodedValue } }
  | readonly EncodedValue[]
  | { readonly [key: string]: EncodedValue };

export interface SpecField { readonly name: string; readonly type: SpecType; readonly optional: boolean }

/** A binder's type as the reader resolved it; `name` is the declared name or the compiler's printing. */
export type SpecType =
  | { readonly kind: "number" | "bigint" | "boolean" | "string"; readonly name: string }
  | { readonly kind: "literal"; readonly name: string; readonly value: EncodedValue }
  | { readonly kind: "literal_union"; readonly name: string; readonly values: readonly EncodedValue[] }
  | { readonly kind: "nullable"; readonly name: string; readonly inner: SpecType; readonly null: boolean; readonly undefined: boolean }
  | { readonly kind: "record"; readonly name: string; readonly fields: readonly SpecField[] }
  | { readonly kind: "tagged_union"; readonly name: string; readonly tag: string;
      readonly variants: readonly { readonly tag: EncodedValue; readonly record: SpecType & { readonly kind: "record" } }[] }
  | { readonly kind: "union"; readonly name: string; readonly members: readonly SpecType[] }
  | { readonly kind: "array"; readonly name: string; readonly element: SpecType; readonly readonly: boolean }
  | { readonly kind: "template"; readonly name: string; readonly texts: readonly string[]; readonly holes: readonly SpecType[] }
  | { readonly kind: "unsupported"; readonly name: string; readonly reason: string };

export type SpecVerdictKind = "checked" | "tested" | "proven" | "refuted" | "unknown" | "conflict";
export type SpecRung = "checked" | "tested" | "proven";
export type UnknownReason = "gave_up" | "unsupported" | "unavailable";

/** One property's verdict in a spec report. */
export interface SpecVerdict {
  readonly kind: SpecVerdictKind;
  readonly property: string;
  readonly rung: SpecRung | null;
  readonly counts: { readonly checked?: number; readonly tested?: number };
  readonly assumptions: readonly string[];
  readonly reasons?: readonly UnknownReason[];
  readonly engine?: { readonly name: string; readonly version: string };
  readonly counterexample?: {
    readonly args: readonly EncodedValue[];
    readonly assignment?: { readonly [binder: string]: EncodedValue };
    readonly call?: { readonly args: readonly EncodedValue[]; readonly result: EncodedValue };
    readonly outcome?: { readonly kind: string };
  };
  readonly seed?: string;
  readonly detail?: string;
}
