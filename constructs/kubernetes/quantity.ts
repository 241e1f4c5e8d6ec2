/**
 * Kubernetes quantities (`250m`, `1.5`, `256Mi`, `1e3`) as the constructs check them: the API server's grammar for
 * the non-negative values a request, a limit or a claim's size takes (exponents of at most two digits).
 */
const QUANTITY_RE = /^\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([-+]?[0-9]{1,2})|(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E))?$/;

/** Each suffix as a power of ten and a power of two. */
const SUFFIXES: Readonly<Record<string, readonly [number, number]>> = {
  m: [-3, 0],
  k: [3, 0],
  M: [6, 0],
  G: [9, 0],
  T: [12, 0],
  P: [15, 0],
  E: [18, 0],
  Ki: [0, 10],
  Mi: [0, 20],
  Gi: [0, 30],
  Ti: [0, 40],
  Pi: [0, 50],
  Ei: [0, 60],
};

/** Whether `q` is a Kubernetes quantity such as `250m`, `1.5`, `256Mi` or `1e3`. */
export function isQuantity(q: unknown): q is string {
  return typeof q === 'string' && QUANTITY_RE.test(q);
}

/** A quantity's exact value as `numerator / denominator`, so that `700m` and `0.7` compare equal. */
function exactValue(q: string): { readonly numerator: bigint; readonly denominator: bigint } {
  const [, number, exponent, suffix] = QUANTITY_RE.exec(q)!;
  const [whole, fraction = ''] = number.split('.');
  const [tens, twos] =
    exponent !== undefined ? [Number(exponent), 0] : suffix !== undefined ? SUFFIXES[suffix] : [0, 0];
  const scale = tens - fraction.length;
  const digits = BigInt(`${whole}${fraction}` || '0');
  const numerator = digits * 2n ** BigInt(twos) * (scale > 0 ? 10n ** BigInt(scale) : 1n);
  return { numerator, denominator: scale < 0 ? 10n ** BigInt(-scale) : 1n };
}

/** -1, 0 or 1 as quantity `a` is below, equal to or above `b` (both {@link isQuantity}). */
export function compareQuantities(a: string, b: string): number {
  const x = exactValue(a);
  const y = exactValue(b);
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}
