/**
 * Kubernetes quantities (`250m`, `1.5`, `256Mi`, `1e3`) as the constructs check them: the API server's grammar for
 * the non-negative values a request, a limit or a claim's size takes.
 */
const QUANTITY_RE = /^([0-9]+(?:\.[0-9]+)?)(?:[eE]([-+]?[0-9]+)|(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E))?$/;

const SUFFIXES: Readonly<Record<string, number>> = {
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Whether `q` is a Kubernetes quantity such as `250m`, `1.5`, `256Mi` or `1e3`. */
export function isQuantity(q: unknown): q is string {
  return typeof q === 'string' && QUANTITY_RE.test(q);
}

/** The value of a quantity ({@link isQuantity}), in units (cores, bytes); precise enough to compare two. */
export function quantityValue(q: string): number {
  const [, number, exponent, suffix] = QUANTITY_RE.exec(q)!;
  const scale = exponent !== undefined ? 10 ** Number(exponent) : suffix !== undefined ? SUFFIXES[suffix] : 1;
  return Number(number) * scale;
}
