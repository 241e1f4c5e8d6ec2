import { escapeName, keyPath } from './path';

/**
 * The exact documented refusal texts that callers outside validation need (the gateway uses them for its own
 * refusals). Names are escaped and cut at 64 code points (see `escapeName`).
 *
 * @example
 * messages.unknownTool('get_custmer'); // "Unknown tool: `get_custmer`"
 */
export const messages = {
  /** `arguments` is not a JSON object. */
  invalidArgumentsObject: 'Invalid arguments: expected an object',
  /** No tool of that name on this gateway (always JSON-RPC -32602). */
  unknownTool(name: string): string {
    return `Unknown tool: \`${escapeName(name)}\``;
  },
  /** The tool's schema could not compile: the tool fails closed (JSON-RPC -32603). */
  toolUnavailable(name: string): string {
    return `Tool unavailable: \`${escapeName(name)}\``;
  },
  /** A parameter and one of its aliases were both sent; the parameter comes first. */
  conflictingParameters(name: string, alias: string): string {
    return `Conflicting parameters: \`${keyPath('', name)}\` and \`${keyPath('', alias)}\``;
  },
} as const;
