import { scanJsonText } from './scan-json-text';
import { MAX_RESPONSE_DEPTH } from './select-fields';
import type { ResponseShaper, ShapeCounts } from './shape-response';

/**
 * JSON text, or its UTF-8 bytes: a result worked out on the body thread stays bytes from there to the agent's
 * connection, so that a large one is not decoded, copied into the response and encoded again.
 */
export type JsonText = string | Buffer;

/** The outcome of a service call: a `tools/call` result as JSON text, or a failure with a short reason. */
export type ServiceOutcome =
  | {
      readonly ok: true;
      readonly resultJson: JsonText;
      /** What response controls dropped and redacted, for the audit record; absent without controls. */
      readonly counts?: ShapeCounts;
    }
  | { readonly ok: false; readonly code: ServiceErrorCode; readonly message: string };

/** Audit-log codes of failed service calls. */
export type ServiceErrorCode =
  | 'SERVICE_HTTP_STATUS'
  | 'SERVICE_TIMEOUT'
  | 'SERVICE_UNAVAILABLE'
  | 'SERVICE_RESPONSE_TOO_LARGE'
  | 'RESPONSES_HELD_FULL'
  | 'SERVICE_BAD_RESPONSE'
  | 'OUTPUT_INVALID'
  | 'RESPONSE_TOO_LARGE';

/** The outcome of a failed call. */
export function failure(code: ServiceErrorCode, message: string): ServiceOutcome {
  return { ok: false, code, message };
}

/**
 * A 2xx body as a tool result: JSON (declared, or undeclared but parseable) → a text content with the JSON and,
 * for an object, `structuredContent`; other text → a text content; an empty body → no content;
 * a body declared JSON that does not parse, or a binary type → an error result. JSON nested deeper than
 * {@link MAX_RESPONSE_DEPTH} levels is not parsed: `JSON.parse` spends about a quarter of a microsecond per level
 * (4 MiB of brackets would hold a thread for over half a second), and a client parsing such `structuredContent`
 * recursively would overflow its stack. Declared JSON that deep is an error result; an undeclared body that deep
 * is text, like any undeclared body that is not JSON.
 *
 * @param contentType the response's `Content-Type`, lower-cased (`''` when there is none)
 */
export function toolResult(text: string, contentType: string): ServiceOutcome {
  if (text === '') return { ok: true, resultJson: '{"content":[]}' };
  const declaredJson = contentType.includes('json');
  if (declaredJson || contentType === '') {
    if (scanJsonText(text, MAX_RESPONSE_DEPTH).tooDeep) {
      return declaredJson ? failure('SERVICE_BAD_RESPONSE', tooDeep) : { ok: true, resultJson: textResult(text) };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (declaredJson) return failure('SERVICE_BAD_RESPONSE', 'Service error: invalid JSON response');
      return { ok: true, resultJson: textResult(text) };
    }
    const content = `[{"type":"text","text":${JSON.stringify(text)}}]`;
    const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
    // The service's own JSON text is reused as structuredContent: it parsed, so it is valid JSON.
    return {
      ok: true,
      resultJson: structured ? `{"content":${content},"structuredContent":${text}}` : `{"content":${content}}`,
    };
  }
  if (contentType.startsWith('text/') || contentType.includes('xml')) return { ok: true, resultJson: textResult(text) };
  return failure('SERVICE_BAD_RESPONSE', 'Service error: unsupported response type');
}

/** The reason given for declared JSON nested too deep to parse. */
const tooDeep = `Service error: JSON response nested deeper than ${MAX_RESPONSE_DEPTH} levels`;

function textResult(text: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}]}`;
}

/**
 * A request that failed for a reason the gateway cannot name, or was cut off: the service could not be asked, or
 * the gateway stopped while the call waited (a body still waiting for the body thread included).
 */
export const REQUEST_FAILED = failure('SERVICE_UNAVAILABLE', 'Service unavailable: request failed');

/**
 * The result of a body the gateway failed to work out (an exception while shaping it, such as a text content past
 * V8's longest string, or the body thread failing on it).
 */
export const BODY_FAILED = failure('SERVICE_BAD_RESPONSE', 'Service error: response could not be processed');

/**
 * A 2xx body as a tool result: its UTF-8 text shaped by the tool's response controls when it has them, else by
 * {@link toolResult}; {@link BODY_FAILED} should any of that throw (decoding included: a body past V8's longest
 * string cannot become a string).
 * @param maxBytes the response limit, which a shaped result is measured against
 */
export function bodyResult(
  body: Buffer,
  contentType: string,
  maxBytes: number,
  shaper: ResponseShaper | undefined,
): ServiceOutcome {
  try {
    let text = body.toString('utf8');
    // a byte order mark before JSON may be ignored (RFC 8259, 8.1): kept, it would make JSON text or fail to parse
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return shaper === undefined ? toolResult(text, contentType) : shaper.shape(text, contentType, maxBytes);
  } catch {
    return BODY_FAILED;
  }
}
