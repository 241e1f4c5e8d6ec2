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
    out.write(`${JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger: Logger = () => undefined;
