/**
 * `tools/list` in pages with opaque cursors. A cursor names a position in one caller's list: the offset and a
 * tag, a SHA-256 over the gateway's name, the names of the tools that list holds (in order) and the offset. A
 * cursor is accepted only by a list with the same tools at the same positions, so a cursor of another gateway, of
 * another tool set (a reload that added, removed or reordered tools) or of another caller's scope set is refused
 * with -32602, and the client lists again from the start. A cursor can only ever point into the list of the caller
 * presenting it: nothing outside that list is reachable by editing one. Replicas with the same config issue and
 * accept the same cursors.
 */
import { createHash } from 'node:crypto';

/** base64url characters of a cursor's tag (132 bits). */
const TAG_CHARS = 22;
/** `<offset in base 36>.<tag>`; the offset is at most 8 base-36 digits (far more tools than a config can hold). */
const CURSOR = /^([0-9a-z]{1,8})\.([A-Za-z0-9_-]{22})$/;

/** Renders one page: its tools and, when more follow, the cursor of the next page. */
export type PageRenderer<T> = (tools: readonly T[], nextCursor: string | undefined) => string;

/** The pages of one caller's list (one scope set), rendered on demand; the first page is kept once rendered. */
export class ToolPages<T extends { readonly name: string }> {
  private fingerprint: string | undefined;
  private firstPage: string | undefined;

  /**
   * @param tools the tools the caller may see, in list order
   * @param pageSize tools per page (a positive integer)
   * @param salt what else a cursor is bound to (the gateway's name)
   */
  constructor(
    private readonly tools: readonly T[],
    private readonly pageSize: number,
    private readonly salt: string,
    private readonly render: PageRenderer<T>,
  ) {}

  /**
   * The page a cursor names (`undefined`: the first page), or `undefined` when the cursor is not one this list
   * issued (the caller answers -32602).
   */
  page(cursor: string | undefined): string | undefined {
    if (cursor === undefined) return (this.firstPage ??= this.renderAt(0));
    const match = CURSOR.exec(cursor);
    if (match === null) return undefined;
    const offset = parseInt(match[1], 36);
    // A cursor is issued only for an offset that starts a page inside the list, written without leading zeros.
    if (offset <= 0 || offset >= this.tools.length || offset.toString(36) !== match[1]) return undefined;
    if (match[2] !== this.tag(offset)) return undefined;
    return this.renderAt(offset);
  }

  private renderAt(offset: number): string {
    const end = offset + this.pageSize;
    const next = end < this.tools.length ? `${end.toString(36)}.${this.tag(end)}` : undefined;
    return this.render(this.tools.slice(offset, end), next);
  }

  private tag(offset: number): string {
    if (this.fingerprint === undefined) {
      const hash = createHash('sha256').update(JSON.stringify(this.salt)).update('\n');
      for (const t of this.tools) hash.update(t.name).update('\n');
      this.fingerprint = hash.digest('base64url');
    }
    return createHash('sha256').update(`${this.fingerprint}.${offset}`).digest('base64url').slice(0, TAG_CHARS);
  }
}

/**
 * The `cursor` of a list request's params: `undefined` when absent, the string when it is one, `null` when it is
 * present but not a string (the caller answers -32602).
 */
export function cursorParam(params: Record<string, unknown> | undefined): string | undefined | null {
  if (params === undefined || !Object.prototype.hasOwnProperty.call(params, 'cursor')) return undefined;
  const cursor = params.cursor;
  return typeof cursor === 'string' ? cursor : null;
}

/** The message of the -32602 answer to a cursor that is not a string. */
export const CURSOR_NOT_STRING = 'Invalid params: cursor must be a string';
/** The message of the -32602 answer to a cursor this list did not issue. */
export const CURSOR_UNKNOWN =
  'Invalid params: cursor is not one this gateway issued for this tool list (it may have changed): list again without a cursor';
