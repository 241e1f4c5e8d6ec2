import type { ToolConfig } from '../src/config';
import { quote } from './docker-names';
import { resolveResponse } from './service-response';

/** What a gateway does to the 2xx response of every tool it serves, besides each service's own `response`. */
export interface GatewayResponse {
  /**
   * Named regular expressions applied to every tool's responses, as a service's `response.redactPatterns` is to
   * its own: every match in any string value, and in the text content, becomes `"[redacted]"`, e.g.
   * `{ email: '[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,255}' }`. A service may name a pattern of its own the same
   * only with the same expression.
   * @default - none
   */
  readonly redactPatterns?: Readonly<Record<string, string>>;
}

/**
 * The gateway's patterns, checked as a service's are (by the same code, so with the same messages).
 * @param fail throws with the message prefixed by the gateway
 */
export function resolveGatewayResponse(
  response: GatewayResponse | undefined,
  fail: (message: string) => never,
): Readonly<Record<string, string>> | undefined {
  if (response === undefined) return undefined;
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    fail(`response (${quote(response)}) must be an object { redactPatterns? }`);
  }
  for (const key of Object.keys(response)) {
    if (key !== 'redactPatterns') {
      fail(
        `response.${key} is not a gateway response setting: a gateway sets redactPatterns for every tool; ` +
          `set ${key} on each service's response`,
      );
    }
  }
  return resolveResponse({ response }, fail).response?.redact_patterns;
}

/** A tool's config with the gateway's patterns before its own (a name both set keeps the tool's). */
export function withGatewayPatterns(
  tool: ToolConfig,
  patterns: Readonly<Record<string, string>> | undefined,
): ToolConfig {
  if (patterns === undefined) return tool;
  return {
    ...tool,
    response: { ...tool.response, redact_patterns: { ...patterns, ...tool.response?.redact_patterns } },
  };
}

/** A service's pattern named as one of the gateway's with another expression: one message per clash. */
export function patternClashes(
  gateway: string,
  tools: readonly ToolConfig[],
  patterns: Readonly<Record<string, string>> | undefined,
): string[] {
  if (patterns === undefined) return [];
  return tools.flatMap((tool) =>
    Object.entries(tool.response?.redact_patterns ?? {})
      .filter(([name, expression]) => patterns[name] !== undefined && patterns[name] !== expression)
      .map(
        ([name]) =>
          `Gateway '${gateway}': response.redactPatterns.${name} is also a pattern of service '${tool.name}' with ` +
          'another expression: rename one, or give both the same',
      ),
  );
}
