/**
 * Whether an `Accept` header takes `text/event-stream` (RFC 9110 §12.5.1): the most specific range that matches it
 * (`text/event-stream`, then `text/*`, then the wildcard of every type) decides, and a `q` of 0 refuses. No header
 * takes nothing: MCP asks a client opening the GET stream to name the type.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let specificity = -1;
  let accepted = false;
  for (const [type, ...params] of mediaRanges(accept)) {
    const rank = RANKS[type];
    if (rank === undefined || rank <= specificity) continue;
    specificity = rank;
    const q = params.find((param) => /^q\s*=/.test(param));
    accepted = q === undefined || Number(q.slice(q.indexOf('=') + 1).trim()) > 0;
  }
  return accepted;
}

const RANKS: Readonly<Record<string, number>> = { 'text/event-stream': 2, 'text/*': 1, '*/*': 0 };

/**
 * The ranges of an `Accept` header, each its type and then its parameters, trimmed and in lower case. A comma or a
 * semicolon inside a quoted parameter value (`;a="x, y"`, with `\"` for a quote) is part of the value.
 */
function mediaRanges(accept: string): string[][] {
  const ranges: string[][] = [];
  let parts: string[] = [];
  let start = 0;
  let quoted = false;
  const cut = (end: number) => {
    parts.push(accept.slice(start, end).trim().toLowerCase());
    start = end + 1;
  };
  for (let i = 0; i < accept.length; i++) {
    const c = accept[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ';') {
      cut(i);
    } else if (c === ',') {
      cut(i);
      ranges.push(parts);
      parts = [];
    }
  }
  cut(accept.length);
  ranges.push(parts);
  return ranges;
}
