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
  // BAD_INDENT also stands for an unclosed flow collection, whose own message is clear
  const code = error.code === 'BAD_INDENT' && !error.message.startsWith('All mapping items') ? 'OTHER' : error.code;
  switch (code) {
    case 'BAD_INDENT':
      return badIndent(lineTexts, start.line);
    case 'MULTILINE_IMPLICIT_KEY':
      return deeperThanKeyWithValue(lineTexts, start.line, lines.linePos(error.pos[1]).line);
    case 'BLOCK_AS_IMPLICIT_KEY':
      return {
        line: start.line,
        column: start.col,
        message:
          'a value cannot be `key: value` on the same line: quote the value or put the nested map on its own lines',
      };
    case 'TAB_AS_INDENT':
      return {
        line: start.line,
        column: start.col,
        message: 'this line is indented with a tab: YAML indents with spaces only',
      };
    default: {
      const message = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      const hint = HINTS.find(([test]) => test(error.code, message))?.[1];
      return { line: start.line, column: start.col, message: hint === undefined ? message : `${message}: ${hint}` };
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

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function keyOf(line: string): string {
  const m = /^\s*(?:- )?("[^"]*"|'[^']*'|[^:#]+?)\s*:/.exec(line);
  return m === null ? line.trim().slice(0, 40) : m[1];
}

/** The nearest line above `line` (1-based) that holds something other than a comment. */
function previousContent(lineTexts: readonly string[], line: number): number | undefined {
  for (let n = line - 1; n >= 1; n--) {
    const t = lineTexts[n - 1];
    if (t.trim() !== '' && !t.trimStart().startsWith('#')) return n;
  }
  return undefined;
}

function spaces(n: number): string {
  return n === 1 ? '1 space' : `${n} spaces`;
}

function badIndent(lineTexts: readonly string[], line: number): YamlProblem {
  const text = lineTexts[line - 1] ?? '';
  const indent = indentOf(text);
  const above = previousContent(lineTexts, line);
  const aboveIndent = above === undefined ? 0 : indentOf(lineTexts[above - 1]);
  return {
    line,
    column: indent + 1,
    message:
      `\`${keyOf(text)}\` is indented by ${spaces(indent)} but \`${keyOf(lineTexts[(above ?? 1) - 1])}\` above it by ` +
      `${spaces(aboveIndent)}: keys of one map start in the same column; indent it like its siblings`,
  };
}

function deeperThanKeyWithValue(lineTexts: readonly string[], keyLine: number, offendingLine: number): YamlProblem {
  const text = lineTexts[offendingLine - 1] ?? '';
  const parent = lineTexts[keyLine - 1] ?? '';
  // `port:8081` is one text to YAML, not a key and its value: the line below then looks misindented. Not a list
  // item (`- localhost:8080` is a text on purpose) nor a URL (`https://…`).
  const glued = /^(\s*)([A-Za-z_][\w-]*):(?!\/\/)(\S.*)$/.exec(parent);
  if (glued !== null) {
    return {
      line: keyLine,
      column: glued[1].length + glued[2].length + 2,
      message: `\`${parent.trim()}\` needs a space after the colon: write \`${glued[2]}: ${glued[3]}\``,
    };
  }
  return {
    line: offendingLine,
    column: indentOf(text) + 1,
    message:
      `\`${keyOf(text)}\` is indented deeper than \`${keyOf(parent)}\` above it, which already has a value on its ` +
      'line: indent it like its siblings, or move that value to nested lines',
  };
}
