/** Log severities, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Writes one structured log record. Records never carry tool argument values: callers pass only names,
 * counts, codes and durations.
 */
export type Logger = (level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) => void;

/**
 * A logger writing JSON lines `{"ts","level","msg",…}` to a stream.
 *
 * @param out where lines go
 * @default out - process.stdout
 */
export function jsonLogger(out: NodeJS.WritableStream = process.stdout): Logger {
  return (level, msg, fields) => {
    out.write(jsonLine({ ts: new Date().toISOString(), level, msg, ...fields }));
  };
}

/** The characters besides `\n` and `\r` that some readers take for a line break; `JSON.stringify` leaves them raw. */
const LINE_BREAKERS = /[\u0085\u2028\u2029]/g;

/**
 * One JSON line (with its `\n`) that every line-splitting reader sees as one line: U+2028, U+2029 and U+0085
 * (valid raw in JSON, but line terminators to JavaScript's and Unicode-aware readers) are written as `\uXXXX`
 * escapes, so a client or tool name cannot split a record or forge the next one (see docs/gateway.md). Shared by the logs
 * and the audit log.
 */
export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value);
  // Three substring searches cost half a regular-expression test (about 7% of the stringify); replace() only
  // when one of the characters is there.
  const breaks = text.includes('\u2028') || text.includes('\u2029') || text.includes('\u0085');
  return `${breaks ? text.replace(LINE_BREAKERS, escapeChar) : text}\n`;
}

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = () => undefined;
