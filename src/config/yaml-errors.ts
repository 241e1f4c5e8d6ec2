import type * as Yaml from 'yaml';
import type { LineCounter, YAMLError } from 'yaml';

/** A YAML syntax error as a user reads it: where the offending key is and what to do. */
export interface YamlProblem {
  /** 1-based. */
  readonly line: number;
  /** 1-based: the column of the offending key, not of the line start. */
  readonly column: number;
  /** One sentence, no position. */
  readonly message: string;
}

/**
 * YAML nested so deep that the library's reader, which recurses once a level, ran out of stack: no config is, a
 * bracket never closed or an indentation that keeps growing is.
 */
const TOO_DEEP =
  'the YAML nests hundreds of levels deep here, deeper than it can be read: look for a `[` or `{` that is never ' +
  'closed, or indentation that keeps growing';

/** What V8 says of a stack overflow. */
const OVERFLOW = 'Maximum call stack size exceeded';

/** A stack overflow, as V8 throws it (the YAML library, or a walk of what it read). */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && err.message === OVERFLOW;
}

/**
 * Runs `parse` (the library's `parseDocument` on `text`, counting lines into `lines`) and gives the document, or
 * its first syntax error explained. A reader that overflows its stack is a problem at the line it had reached.
 */
export function readYamlDocument<D extends { readonly errors: readonly YAMLError[] }>(
  parse: () => D,
  text: string,
  lines: LineCounter,
): { readonly doc: D; readonly problem?: undefined } | { readonly doc?: undefined; readonly problem: YamlProblem } {
  let doc: D;
  try {
    doc = parse();
  } catch (err) {
    if (!isStackOverflow(err)) throw err;
    // thrown, it has no position: the most indented line is where block nesting is deepest
    return { problem: { ...deepestLine(text), message: TOO_DEEP } };
  }
  return doc.errors.length === 0 ? { doc } : { problem: explainYamlErrors(doc.errors, text, lines) };
}

/**
 * The line whose content starts furthest right, where it starts: the dashes of lists nested on one line (`- - - 1`)
 * count as indentation, and blank lines and comments hold no nesting.
 */
function deepestLine(text: string): { line: number; column: number } {
  let at = { line: 1, column: 1 };
  text.split(/\r?\n/).forEach((line, i) => {
    if (!isContent(line)) return;
    const column = /^\s*(?:-\s+)*/.exec(line)![0].length + 1;
    if (column > at.column) at = { line: i + 1, column };
  });
  return at;
}

/**
 * Explains the first of a document's YAML syntax errors in a user's words (the `yaml` library reports an
 * indentation mistake at column 1, or at the value before it, in parser terms). One home for the manifest reader
 * and the gateway config loader.
 *
 * @param errors `parseDocument(...).errors`, at least one
 */
export function explainYamlErrors(errors: readonly YAMLError[], text: string, lines: LineCounter): YamlProblem {
  const lineTexts = text.split(/\r?\n/);
  // A tab makes the lines after it look misindented: said when it comes first. `a: 1` followed by a deeper
  // `b: 2` gives two errors; the second one names the line of the offending key.
  const error =
    errors[0].code === 'TAB_AS_INDENT'
      ? errors[0]
      : (errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY') ?? errors[0]);
  const start = lines.linePos(error.pos[0]);
  // the library's sentence, without the position `prettyErrors` adds
  const said = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  // an unclosed `{` or `[` is reported where the library gives up on it, the line after: said where it opens
  const unclosed = /^Flow (map|sequence) .*end with a [}\]]$/.test(said) ? unclosedFlow(text, error.pos[0]) : undefined;
  if (unclosed !== undefined) {
    const at = lines.linePos(unclosed.offset);
    const [what, end] = unclosed.source === '{' ? ['map', '}'] : ['list', ']'];
    return {
      line: at.line,
      column: at.col,
      message: `this \`${unclosed.source}\` is not closed: end the ${what} with \`${end}\``,
    };
  }
  const quote = quoteMistake(error, said, text);
  if (quote !== undefined) {
    const at = lines.linePos(quote.offset);
    return { line: at.line, column: at.col, message: quote.message };
  }
  const first = nextContent(lineTexts, 1);
  const firstIndent = indentOf(lineTexts[first - 1] ?? '');
  // a first key indented deeper than the keys below it: the library says the shallower line is unexpected
  const startsKey = keyMatch(lineTexts[start.line - 1] ?? '')?.lead.trim() === '';
  if (error.code === 'UNEXPECTED_TOKEN' && / at node end$/.test(said) && start.col - 1 < firstIndent && startsKey) {
    const firstText = lineTexts[first - 1];
    return {
      line: first,
      column: firstIndent + 1,
      message:
        `\`${keyOf(firstText)}\`, the first key, is indented by ${spaces(firstIndent)} but ` +
        `\`${keyOf(lineTexts[start.line - 1])}\` on line ${start.line} by ${spaces(start.col - 1)}: the keys at the ` +
        `top of the file start in the first column; remove the spaces before \`${keyOf(firstText)}\``,
    };
  }
  // a stack overflow the library caught, by its code and its first words: the lines around an error, which a
  // manifest's errors carry, may hold any text
  if (error.code === 'RESOURCE_EXHAUSTION' && said === OVERFLOW) {
    return { line: start.line, column: start.col, message: TOO_DEEP };
  }
  // BAD_INDENT also stands for a flow collection closed on a line not indented deeper than its key
  const code = error.code === 'BAD_INDENT' && !error.message.startsWith('All mapping items') ? 'OTHER' : error.code;
  switch (code) {
    case 'BAD_INDENT':
      // reported at a comment line when one comes before the misindented key: the key is the mistake
      return badIndent(lineTexts, nextContent(lineTexts, start.line));
    case 'MULTILINE_IMPLICIT_KEY':
      return deeperThanKeyWithValue(lineTexts, start.line, lines.linePos(error.pos[1]).line);
    case 'BLOCK_AS_IMPLICIT_KEY':
      return {
        line: start.line,
        column: start.col,
        message:
          'a value cannot be `key: value` on the same line: quote the value or put the nested map on its own lines',
      };
    case 'MISSING_CHAR':
      // `port:8081` or `port 8081` as the last key of its map (before a shallower key or the end): the library
      // says `Implicit map keys need to be followed by map values`; the same words as in the middle of a map
      if (said.startsWith('Implicit map keys')) return notKeyValue(lineTexts, start.line);
      return { line: start.line, column: start.col, message: said };
    case 'TAB_AS_INDENT':
      return {
        line: start.line,
        column: start.col,
        message: 'this line is indented with a tab: YAML indents with spaces only',
      };
    default: {
      const hint = HINTS.find(([test]) => test(error.code, said))?.[1];
      return { line: start.line, column: start.col, message: hint === undefined ? said : `${said}: ${hint}` };
    }
  }
}

/** What to do about the library's own messages a newcomer meets most. */
const HINTS: readonly [(code: string, message: string) => boolean, string][] = [
  [
    (code) => code === 'BAD_DQ_ESCAPE',
    "in double quotes a backslash starts an escape: write the value in single quotes ('^\\d{5}$') or double the backslash",
  ],
  [
    (code, message) => code === 'UNEXPECTED_TOKEN' && /flow-(map|seq)-start at node end/.test(message),
    "inside { … } or [ … ], quote a value that holds {, }, [, ] or a comma, e.g. url: 'http://api:8080/items/{id}'",
  ],
  [
    (code, message) => code === 'BAD_INDENT' && message.startsWith('Flow '),
    'close the { … } or [ … ] on its line, or indent its next lines deeper than its key',
  ],
];

/**
 * The innermost `{` or `[` before `offset` that the parser found no `}` or `]` for, unless one comes later in the
 * text: then the collection is closed, on a line indented too little, which the library's own message says.
 */
function unclosedFlow(text: string, offset: number): { offset: number; source: string } | undefined {
  let found: { offset: number; source: string } | undefined;
  visitCst(text, ({ value }) => {
    if (value?.type !== 'flow-collection' || value.start.offset >= offset) return;
    const close = value.start.source === '{' ? '}' : ']';
    if (value.end.some((t) => t.source === close)) return;
    if (found === undefined || value.start.offset > found.offset) found = value.start;
  });
  return found === undefined || closedLater(text.slice(offset)) ? undefined : found;
}

/**
 * A quoted text that is never closed (said where it opens), or one ended by a quote meant to be inside it, the text
 * going on right after (`'customer's orders'`, `"a "big" one"`: said at that quote). The library says
 * `Missing closing 'quote` at the end of the file, and after the quote `Unexpected scalar at node end` (a value),
 * `Unexpected scalar token` (a key) or `Missing , or : between flow sequence items` (in `[ … ]` or `{ … }`). A key
 * below another is said at its start: `Implicit keys need to be on a single line` (never closed) or `Implicit map
 * keys need to be followed by map values`.
 */
function quoteMistake(error: YAMLError, said: string, text: string): { offset: number; message: string } | undefined {
  const missing = /^Missing closing (["'])quote/.exec(said);
  const after =
    (error.code === 'UNEXPECTED_TOKEN' && /^Unexpected scalar (at node end|token)/.test(said)) ||
    (error.code === 'MISSING_CHAR' && /^Missing , or : between flow (sequence|map) items/.test(said));
  const atKey =
    error.code === 'MULTILINE_IMPLICIT_KEY' ||
    (error.code === 'MISSING_CHAR' && said.startsWith('Implicit map keys need to be followed by map values'));
  if (missing === null && !after && !atKey) return undefined;
  const scalars = quotedScalars(text);
  const inside = (q: string) => (q === "'" ? "an apostrophe inside '…' as ''" : 'a quote inside "…" as \\"');
  const neverClosed = (open: { offset: number; source: string }) => {
    const q = open.source[0];
    return {
      offset: open.offset,
      message: `this ${q} opens a text that is never closed: end it with ${q}, and write ${inside(q)}`,
    };
  };
  if (missing !== null) {
    const q = missing[1];
    const open = scalars.filter((t) => t.offset <= error.pos[0] && t.source[0] === q).pop();
    return open === undefined ? undefined : neverClosed(open);
  }
  const key = atKey ? scalars.find((t) => t.offset === error.pos[0]) : undefined;
  // the library's own test of a closed quote
  if (key !== undefined && (key.source.length === 1 || !key.source.endsWith(key.source[0]))) return neverClosed(key);
  // a key's text going on after its quote: not a space, nor the colon after the key
  const keyGoesOn = key !== undefined && /[^\s:,#[\]{}]/.test(text.charAt(key.offset + key.source.length));
  const ended = after ? scalars.find((t) => t.offset + t.source.length === error.pos[0]) : keyGoesOn ? key : undefined;
  if (ended === undefined) return undefined;
  const q = ended.source[0];
  const other = q === "'" ? 'double quotes' : 'single quotes';
  return {
    offset: ended.offset + ended.source.length - 1,
    message: `this ${q} ends the quoted text too early (the text goes on after it): write ${inside(q)}, or put the text in ${other}`,
  };
}

/** The quoted scalars of `text`, in file order. */
function quotedScalars(text: string): { offset: number; source: string }[] {
  const found: { offset: number; source: string }[] = [];
  visitCst(text, ({ key, value }) => {
    for (const token of [key, value]) {
      if (token?.type === 'single-quoted-scalar' || token?.type === 'double-quoted-scalar') found.push(token);
    }
  });
  return found.sort((a, b) => a.offset - b.offset);
}

/**
 * Calls `visit` with every item of `text`'s concrete syntax tree, each document's own value first (the tree keeps
 * what the parser read, mistakes included, with their offsets).
 */
function visitCst(text: string, visit: Parameters<typeof Yaml.CST.visit>[1]): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the YAML parser, see load-config
  const { CST, Parser } = require('yaml') as typeof Yaml;
  for (const token of new Parser().parse(text)) if (token.type === 'document') CST.visit(token, visit);
}

/** Whether `rest` closes more `{ … }` and `[ … ]` than it opens (quoted texts and comments aside). */
function closedLater(rest: string): boolean {
  let depth = 0;
  for (const line of rest.split(/\r?\n/)) {
    const code = line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '""').replace(/(^|\s)#.*$/, '');
    for (const c of code) {
      if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth < 0) return true;
    }
  }
  return false;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

// a colon ends a key only before a space or the line end: `- localhost:8080` is a text, not a key
const KEY = /^(\s*(?:-\s+)*)("[^"]*"|'[^']*'|[^#]+?)\s*:(?:\s|$)/;

/** How much of a line {@link KEY} reads after its indentation: its time grows with the square of what it reads. */
const KEY_READ = 400;

/** A line's key and the column (0-based) it starts at; `lead` is what comes before it after the indentation. */
function keyMatch(line: string): { key: string; column: number; lead: string } | undefined {
  const indent = indentOf(line);
  const m = KEY.exec(line.slice(indent, indent + KEY_READ));
  return m === null ? undefined : { key: m[2], column: indent + m[1].length, lead: m[1] };
}

/** The column (0-based) a line's key starts at, after any `- ` of a list item; else its indentation. */
function keyColumn(line: string): number {
  return keyMatch(line)?.column ?? indentOf(line);
}

function keyOf(line: string): string {
  return keyMatch(line)?.key ?? line.trim().slice(0, 40);
}

/** The nearest line above `line` (1-based) that holds something other than a comment. */
function previousContent(lineTexts: readonly string[], line: number): number | undefined {
  for (let n = line - 1; n >= 1; n--) {
    if (isContent(lineTexts[n - 1])) return n;
  }
  return undefined;
}

/** `line` if it holds something other than a comment, else the next line that does (or `line` at the end). */
function nextContent(lineTexts: readonly string[], line: number): number {
  for (let n = line; n <= lineTexts.length; n++) {
    if (isContent(lineTexts[n - 1])) return n;
  }
  return line;
}

function isContent(line: string): boolean {
  return line.trim() !== '' && !line.trimStart().startsWith('#');
}

function spaces(n: number): string {
  return n === 1 ? '1 space' : `${n} spaces`;
}

/**
 * A key that does not start in the column of the map it is in. The library reports it at the map that ends
 * there, which is not always the line the key belongs with: a key one space deeper than its siblings, after a
 * sibling's nested map (`backend:` with its `url`, `method`), sits between two maps. Said against the line it is
 * nearer to, or both when it is as near to each.
 */
function badIndent(lineTexts: readonly string[], line: number): YamlProblem {
  const text = lineTexts[line - 1] ?? '';
  const indent = indentOf(text);
  const at = { line, column: indent + 1 };
  const above = previousContent(lineTexts, line);
  if (above === undefined) return { ...at, message: misaligned(text, indent, lineTexts[0], 0) };
  const aboveText = lineTexts[above - 1];
  // deeper than the line above, which has its value on its line (a `{ … }`, a quoted text)
  if (keyColumn(aboveText) < indent) return { ...at, message: deeperThanValue(text, aboveText) };
  // shallower than the line above: the end of a nested map, whose parent (`outer`) is above it
  let outer: number | undefined;
  let innerIndent = indentOf(aboveText);
  for (let n: number | undefined = above; n !== undefined; n = previousContent(lineTexts, n)) {
    const nIndent = indentOf(lineTexts[n - 1]);
    if (nIndent < indent) {
      outer = n;
      break;
    }
    innerIndent = Math.min(innerIndent, nIndent);
  }
  // the last line above at the nested map's column: the sibling to align with if the key belongs in that map
  const innerText = lineTexts[lastAt(lineTexts, above, innerIndent) - 1];
  if (innerIndent === indent) return { ...at, message: misaligned(text, indent, aboveText, indentOf(aboveText)) };
  if (outer === undefined) return { ...at, message: misaligned(text, indent, innerText, innerIndent) };
  const outerText = lineTexts[outer - 1];
  const outerColumn = keyColumn(outerText);
  // between the `-` of a list item and its key: the item's keys are the only map it can belong to
  if (outerColumn >= indent) return { ...at, message: misaligned(text, indent, innerText, innerIndent) };
  const toOuter = indent - outerColumn;
  const toInner = innerIndent - indent;
  // a key is no item of a list nor a line of a text: after `- 1`, `- 2` or a `|` text it can only belong with the
  // key above them
  const innerIsItem = /^\s*-(\s|$)/.test(innerText) && !/^\s*-(\s|$)/.test(text);
  const outerIsText = /:\s+[|>][-+0-9]*\s*(#.*)?$/.test(outerText);
  if (toOuter < toInner || innerIsItem || outerIsText)
    return { ...at, message: misaligned(text, indent, outerText, outerColumn) };
  if (toInner < toOuter) return { ...at, message: misaligned(text, indent, innerText, innerIndent) };
  return {
    ...at,
    message:
      `\`${keyOf(text)}\` is indented by ${spaces(indent)}, between \`${keyOf(outerText)}\` ` +
      `(${spaces(outerColumn)}) and \`${keyOf(innerText)}\` above it (${spaces(innerIndent)}): keys of one map ` +
      `start in the same column; align it with \`${keyOf(outerText)}\`, or with \`${keyOf(innerText)}\` to nest it ` +
      `under \`${keyOf(outerText)}\``,
  };
}

/** The last line at or above `line` (1-based) indented by `indent`. */
function lastAt(lineTexts: readonly string[], line: number, indent: number): number {
  let n: number | undefined = line;
  while (n !== undefined && indentOf(lineTexts[n - 1]) !== indent) n = previousContent(lineTexts, n);
  return n ?? line;
}

function misaligned(text: string, indent: number, sibling: string, siblingIndent: number): string {
  return (
    `\`${keyOf(text)}\` is indented by ${spaces(indent)} but \`${keyOf(sibling)}\` above it by ` +
    `${spaces(siblingIndent)}: keys of one map start in the same column; indent it like its siblings`
  );
}

/** `text` is deeper than `parent`, whose value is on its own line: nothing can nest under `parent`. */
function deeperThanValue(text: string, parent: string): string {
  const key = keyOf(text);
  return (
    `\`${key}\` is indented by ${spaces(indentOf(text))}, deeper than \`${keyOf(parent)}\` above it ` +
    `(${spaces(keyColumn(parent))}), which has a value on its line and so cannot hold nested keys: align ` +
    `\`${key}\` with \`${keyOf(parent)}\`, or nest it under a key that takes a map`
  );
}

function deeperThanKeyWithValue(lineTexts: readonly string[], keyLine: number, offendingLine: number): YamlProblem {
  const text = lineTexts[offendingLine - 1] ?? '';
  const parent = lineTexts[keyLine - 1] ?? '';
  // `port:8081` is one text to YAML, not a key and its value: the line below then looks misindented. Not
  // deeper: the line above is a text where a key is expected (`hello` above `b: 2`), which YAML reads as the
  // start of a key running over both lines.
  if (glued(parent) !== undefined || indentOf(text) <= keyColumn(parent)) return notKeyValue(lineTexts, keyLine);
  return { line: offendingLine, column: indentOf(text) + 1, message: deeperThanValue(text, parent) };
}

/** `port:8081` as a key and its value: not a list item (`- localhost:8080` is a text on purpose) nor a URL. */
function glued(line: string): RegExpExecArray | undefined {
  return /^(\s*)([A-Za-z_][\w-]*):(?!\/\/)(\S.*)$/.exec(line) ?? undefined;
}

/** A line of text where a key and its value are expected: said as the missing space, else as not a key. */
function notKeyValue(lineTexts: readonly string[], line: number): YamlProblem {
  const text = lineTexts[line - 1] ?? '';
  const g = glued(text);
  if (g !== undefined) {
    return {
      line,
      column: g[1].length + g[2].length + 2,
      message: `\`${text.trim()}\` needs a space after the colon: write \`${g[2]}: ${g[3]}\``,
    };
  }
  return {
    line,
    column: indentOf(text) + 1,
    message: `\`${text.trim().slice(0, 40)}\` is not a \`key: value\`: write it as one, or remove the line`,
  };
}
