import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import type { GatewayConfig } from './gateway-config';
import { ConfigError } from './config-error';
import { configDigest } from './config-handoff';
import { parseGatewayConfig } from './parse-config';
import { readYamlDocument } from './yaml-errors';

/**
 * Reads a gateway config file, JSON or YAML (told apart by content), and validates it.
 *
 * @throws ConfigError one line: the unreadable file, the syntax error with its line, or the bad field
 * @example
 * const config = loadGatewayConfig('/etc/cdktf-mcp-gateway/gateway.json');
 */
export function loadGatewayConfig(file: string): GatewayConfig {
  return readGatewayConfigFile(file).config;
}

/**
 * {@link loadGatewayConfig}, with the bytes it read and their digest (what `/readyz` and the status file report).
 *
 * @param regularOnly refuse anything but a regular file (a FIFO, a device, a directory) without reading it: a
 *   running gateway's reload, where a FIFO nothing writes would hold the event loop and `/dev/zero` fill memory
 * @throws ConfigError as `loadGatewayConfig`
 */
export function readGatewayConfigFile(
  file: string,
  regularOnly = false,
): { config: GatewayConfig; digest: string; bytes: Buffer } {
  let bytes: Buffer;
  try {
    bytes = readConfigBytes(file, regularOnly);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`cannot read config file ${file}: ${code}`);
  }
  const config = parseGatewayConfig(parseText(bytes.toString('utf8'), file), file);
  return { config, digest: configDigest(bytes), bytes };
}

/**
 * The most bytes a config file may hold: many times the largest real config (10,000 tools take about 10 MB), and
 * far under what would exhaust a gateway's memory before the file is refused.
 */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * Reads what it opened: with `regularOnly`, opened without blocking (a FIFO with no writer) and read only if it is
 * a regular file; a regular file over {@link MAX_CONFIG_BYTES} is refused unread.
 */
function readConfigBytes(file: string, regularOnly: boolean): Buffer {
  const fd = openSync(file, regularOnly ? constants.O_RDONLY | constants.O_NONBLOCK : constants.O_RDONLY);
  try {
    const info = fstatSync(fd);
    if (regularOnly && !info.isFile()) throw new ConfigError(`cannot read config file ${file}: not a regular file`);
    if (info.isFile() && info.size > MAX_CONFIG_BYTES) {
      throw new ConfigError(
        `cannot read config file ${file}: ${info.size} bytes, more than the ${MAX_CONFIG_BYTES / 1024 / 1024} MiB a ` +
          'config may hold',
      );
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function parseText(text: string, file: string): unknown {
  if (text.trimStart().startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new ConfigError(`invalid JSON in ${file}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  // Loaded only for a YAML file: a JSON config (what the constructs write) never pays for the YAML parser.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { LineCounter, parseDocument } = require('yaml') as typeof Yaml;
  const lineCounter = new LineCounter();
  const { doc, problem } = readYamlDocument(
    () => parseDocument(text, { prettyErrors: false, lineCounter }),
    text,
    lineCounter,
  );
  if (problem !== undefined) {
    throw new ConfigError(
      `invalid YAML in ${file} at line ${problem.line}, column ${problem.column}: ${problem.message}`,
    );
  }
  try {
    return doc.toJS();
  } catch (err) {
    // an alias before its anchor, or aliases expanding past the library's bound (a "billion laughs" document)
    throw new ConfigError(`invalid YAML in ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
}
