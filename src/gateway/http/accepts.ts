/**
 * Whether an `Accept` header takes `text/event-stream` (RFC 9110 §12.5.1): the most specific range that matches it
 * (`text/event-stream`, then `text/*`, then the wildcard of every type) decides, and a `q` of 0 refuses. No header
 * takes nothing: MCP asks a client opening the GET stream to name the type.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  let specificity = -1;
  let accepted = false;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const rank = RANKS[type];
    if (rank === undefined || rank <= specificity) continue;
    specificity = rank;
    const q = params.find((param) => /^q\s*=/.test(param));
    accepted = q === undefined || Number(q.slice(q.indexOf('=') + 1).trim()) > 0;
  }
  return accepted;
}

const RANKS: Readonly<Record<string, number>> = { 'text/event-stream': 2, 'text/*': 1, '*/*': 0 };
