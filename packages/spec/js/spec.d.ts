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
}

export interface ForallOptions<F extends (...args: any[]) => any> {
  /** The precondition: inputs where it is false are outside the claim. */
  readonly when?: (...args: Parameters<F>) => boolean;
  /** The claim, evaluated only where `when` holds. */
  readonly ensures: (...args: Parameters<F>) => boolean;
  readonly sample?: Sample;
}

export interface ForallProperty<F extends (...args: any[]) => any> {
  readonly kind: "forall";
  readonly f: F;
  readonly when: ((...args: Parameters<F>) => boolean) | undefined;
  readonly ensures: (...args: Parameters<F>) => boolean;
  readonly sample: Sample | undefined;
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
