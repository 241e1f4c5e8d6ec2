/**
 * The declared-input format of a service (see docs/input-and-validation.md): a map of parameter name to parameter spec.
 *
 * @example
 * const input = {
 *   customer_id: { type: 'string', required: true },
 *   limit: { type: 'integer', minimum: 1, maximum: 100 },
 * } as const satisfies InputSpec;
 * type Args = InferArgs<typeof input>; // { customer_id: string; limit?: number }
 */
export type InputSpec = Readonly<Record<string, ParamSpec>>;

/** The JSON types a parameter may declare. */
export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** Formats every gateway understands; others are refused at synthesis. */
export type StringFormat = 'date-time' | 'date' | 'time' | 'email' | 'uri' | 'uuid' | 'hostname' | 'ipv4' | 'ipv6';

/** One declared parameter (or nested property, or array item). */
export interface ParamSpec {
  /** The JSON type of the value. */
  readonly type: ParamType;
  /**
   * Whether the caller must send this parameter.
   * @default false
   */
  readonly required?: boolean;
  /**
   * Advertised to agents in the tool's input schema.
   * @default - no description
   */
  readonly description?: string;
  /**
   * Advertised only; a default is never applied by the gateway.
   * @default - no default advertised
   */
  readonly default?: unknown;
  /**
   * The only accepted values (never `null`).
   * @default - any value of the type
   */
  readonly enum?: readonly (string | number | boolean)[];
  /** Inclusive lower bound (`integer`, `number`). @default - none */
  readonly minimum?: number;
  /** Inclusive upper bound (`integer`, `number`). @default - none */
  readonly maximum?: number;
  /** Exclusive lower bound (`integer`, `number`). @default - none */
  readonly exclusiveMinimum?: number;
  /** Exclusive upper bound (`integer`, `number`). @default - none */
  readonly exclusiveMaximum?: number;
  /** Minimum length in code points (`string`). @default - none */
  readonly minLength?: number;
  /** Maximum length in code points (`string`). @default - none */
  readonly maxLength?: number;
  /** ECMAScript regular expression the value must match (`string`, unanchored unless you anchor it). @default - none */
  readonly pattern?: string;
  /** A named string format (`string`). @default - none */
  readonly format?: StringFormat;
  /** Minimum number of elements (`array`). @default - none */
  readonly minItems?: number;
  /** Maximum number of elements (`array`). @default - none */
  readonly maxItems?: number;
  /** Whether elements must be distinct (`array`). @default false */
  readonly uniqueItems?: boolean;
  /** The spec every element must satisfy (`array`). @default - elements are not checked */
  readonly items?: ParamSpec;
  /**
   * Declared properties (`object`). With properties the object is closed (unknown keys refused);
   * without, it is an open map that is only type-checked.
   * @default - an open map
   */
  readonly properties?: InputSpec;
  /**
   * Accept keys beyond `properties` on purpose (`object` with `properties`).
   * @default false
   */
  readonly additionalProperties?: boolean;
  /**
   * Unadvertised compatibility names accepted for this parameter (top-level parameters only).
   * @default - no aliases
   */
  readonly aliases?: readonly string[];
  /**
   * The field name the backend receives (top-level parameters only).
   * @default - the parameter's own name
   */
  readonly forwardAs?: string;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S extends InputSpec> = {
  [K in keyof S]: S[K] extends { readonly required: true } ? K : never;
}[keyof S];
type OptionalKeys<S extends InputSpec> = Exclude<keyof S, RequiredKeys<S>>;

/** The TypeScript type of a value valid for one parameter spec. */
export type InferParam<P extends ParamSpec> = P extends { readonly enum: readonly (infer E)[] }
  ? E
  : P['type'] extends 'string'
    ? string
    : P['type'] extends 'integer' | 'number'
      ? number
      : P['type'] extends 'boolean'
        ? boolean
        : P['type'] extends 'array'
          ? P extends { readonly items: infer I extends ParamSpec }
            ? InferParam<I>[]
            : unknown[]
          : P['type'] extends 'object'
            ? P extends { readonly properties: infer Props extends InputSpec }
              ? P extends { readonly additionalProperties: true }
                ? InferArgs<Props> & Record<string, unknown>
                : InferArgs<Props>
              : Record<string, unknown>
            : never;

/** The TypeScript type of the valid arguments of a declared input. */
export type InferArgs<S extends InputSpec> = Simplify<
  { [K in RequiredKeys<S>]: InferParam<S[K]> } & { [K in OptionalKeys<S>]?: InferParam<S[K]> }
>;
