/**
 * The gateway's work on a 2xx response for a tool with response controls, in a fixed order: parse JSON →
 * `fields` selection → output validation → `redact` and `redactPatterns` → `maxBytes` → the result. The text
 * content is rendered from the shaped value, never from the body, so nothing dropped or redacted reaches the agent
 * by another way. Messages never hold a response value: only declared names, paths and limits.
 */
import { compileToolSchema, invalidType, isJsonObject, type ToolValidator } from '../validation';
import { compileRedactPattern, type RedactPattern } from './redact-pattern';
import { nonFiniteNumbers } from '../validation';
import { advertisedOutputSchema } from './advertised-output-schema';
import { declaredOnlyMessage } from './response-violations';
import {
  hasFewStrings,
  matchesOutsideStrings,
  mayMatchInJson,
  redactKeysAndNumbers,
  redactMatches,
  redactPaths,
  redactText,
} from './redact';
import type { PathStep } from './redact-path';
import { redactSteps, type ResponseFields } from './response-rules';
import { scanJsonText } from './scan-json-text';
import { fieldSelector, MAX_RESPONSE_DEPTH, type FieldSelector } from './select-fields';

/** A tool's response controls, as the gateway config holds them. */
export interface ResponseControlsConfig {
  /** The declared output schema (generated or raw). */
  readonly output_schema?: Record<string, unknown>;
  readonly response?: {
    readonly fields?: ResponseFields;
    readonly redact?: readonly string[];
    readonly redact_patterns?: Readonly<Record<string, string>>;
    readonly max_bytes?: number;
  };
}

/** The counts an audit record gains for a shaped call (never values). */
export interface ShapeCounts {
  readonly fields_dropped: number;
  readonly redacted: number;
}

/** The outcome of shaping: the result (JSON text) and its counts, or why the response is not forwarded. */
export type ShapeOutcome =
  | { readonly ok: true; readonly resultJson: string; readonly counts: ShapeCounts | undefined }
  | {
      readonly ok: false;
      readonly code: 'OUTPUT_INVALID' | 'RESPONSE_TOO_LARGE' | 'SERVICE_BAD_RESPONSE';
      readonly message: string;
    };

/** The exact refusal texts of response controls. */
export const responseMessages = {
  /** Output validation failed: `detail` is the validation message, with the response path. */
  invalid(detail: string): string {
    return `Service returned an invalid response: ${detail}`;
  },
  /** A tool with a declared output got a body that is not a JSON object. */
  notAnObject: 'Service returned an invalid response: expected a JSON object',
  /** The response nests deeper than the gateway shapes. */
  tooDeep: `Service returned an invalid response: nested deeper than ${MAX_RESPONSE_DEPTH} levels`,
  /** The shaped result is over its limit. */
  tooLarge(bytes: number, limit: number): string {
    return `Service response too large: ${bytes} bytes (limit ${limit})`;
  },
} as const;

/** What a shaper is compiled from: enough to compile the same shaper again (on another thread). */
export interface ResponseControlsSource {
  readonly config: ResponseControlsConfig;
  readonly validateOutput: boolean;
}

/** A tool's compiled response controls. */
export interface ResponseShaper {
  /** The schema `tools/list` advertises (loosened where redaction may replace a string), when output is declared. */
  readonly advertisedSchema: Record<string, unknown> | undefined;
  /** The settings it was compiled from (only the response controls of the tool's config). */
  readonly source: ResponseControlsSource;
  /**
   * Whether it runs `redactPatterns`: a pattern outside V8's fast path runs on RE2's slower matcher over every
   * string, at up to a few milliseconds per KiB, so such bodies leave the gateway's thread from a few KiB up.
   */
  readonly searches: boolean;
  /**
   * Shapes a 2xx body.
   * @param contentType the response's `Content-Type`, lower-cased (`''` when none)
   * @param defaultMaxBytes the limit when the tool sets no `max_bytes` (the gateway's response limit)
   */
  shape(text: string, contentType: string, defaultMaxBytes: number): ShapeOutcome;
}

/**
 * Compiles a tool's response controls; `undefined` when the tool has none to apply (no output to validate, no
 * `response`), so its responses take the plain path.
 * @param validateOutput the gateway's `validate_output`
 * @returns the shaper, or the reason the output schema does not compile
 */
export function compileResponseControls(
  config: ResponseControlsConfig,
  validateOutput: boolean,
): { readonly shaper: ResponseShaper | undefined } | { readonly error: string } {
  const output = config.output_schema;
  let validator: ToolValidator | undefined;
  if (output !== undefined) {
    const compiled = compileToolSchema(output);
    if (!compiled.ok) return { error: compiled.error.replace(/^input schema: /, 'output schema: ') };
    if (validateOutput) validator = compiled.validator;
  }
  const response = config.response;
  if (validator === undefined && response === undefined) return { shaper: undefined };
  const paths = redactSteps(response?.redact);
  const patterns = Object.values(response?.redact_patterns ?? {}).map((source) => compileRedactPattern(source));
  const selector = response?.fields === 'declared' && output !== undefined ? fieldSelector(output) : undefined;
  const advertised = output === undefined ? undefined : advertisedOutputSchema(output, paths, patterns.length > 0);
  const shaper = new Shaper(
    validator,
    output,
    selector,
    paths,
    response?.redact ?? [],
    patterns,
    response?.max_bytes,
    response !== undefined,
  );
  const source = { config: { output_schema: output, response }, validateOutput };
  return { shaper: Object.assign(shaper, { advertisedSchema: advertised, source, searches: patterns.length > 0 }) };
}

class Shaper {
  constructor(
    private readonly validator: ToolValidator | undefined,
    /** What response messages may name: only the keys it declares. */
    private readonly output: Record<string, unknown> | undefined,
    private readonly selector: FieldSelector | undefined,
    private readonly paths: readonly (readonly PathStep[])[],
    /** The `redact` paths as the tool writes them, for a refusal's message. */
    private readonly pathTexts: readonly string[],
    private readonly patterns: readonly RedactPattern[],
    private readonly maxBytes: number | undefined,
    private readonly counted: boolean,
  ) {}

  shape(text: string, contentType: string, defaultMaxBytes: number): ShapeOutcome {
    // the tool's maxBytes bounds every byte the agent gets; without one, the gateway's response limit bounds each of
    // the result's two copies of the value (a body within that limit stays within it when nothing grows it)
    const limit: Limit =
      this.maxBytes !== undefined ? { bytes: this.maxBytes, whole: true } : { bytes: defaultMaxBytes, whole: false };
    const body = this.parse(text, contentType);
    if ('ok' in body) return body;
    let { value } = body;
    const { parsed, hugeNumbers } = body;
    if (this.validator !== undefined && !(parsed && isJsonObject(value))) {
      return { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.notAnObject };
    }
    if (!parsed) return this.shapeText(text, contentType, limit);
    let dropped = 0;
    if (this.selector !== undefined) {
      const selected = this.selector.select(value);
      value = selected.value;
      dropped = selected.dropped;
    }
    if (this.validator !== undefined) {
      const verdict = this.validator.validate(value);
      if (!verdict.valid) {
        const message = declaredOnlyMessage(verdict.violations, this.output);
        return { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.invalid(message) };
      }
    }
    // A number JSON cannot carry (1e400 parses as Infinity) would be rendered as null: a value the service never
    // sent. Validation refuses it where the output declares a number; this catches it anywhere else. Only a text
    // with a huge number literal can hold one, so the walk is for those.
    if (hugeNumbers && typeof value === 'object' && value !== null) {
      const problems = nonFiniteNumbers(value as Record<string, unknown>);
      if (problems !== undefined) {
        const message = declaredOnlyMessage(problems, this.output);
        return { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.invalid(message) };
      }
    }
    let redacted = 0;
    if (this.paths.length > 0) {
      const done = redactPaths(value, this.paths);
      if ('unredactable' in done) {
        // only an unchecked response gets here; the path is one the tool declares
        const message = invalidType(this.pathTexts[done.unredactable], 'string').message;
        return { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.invalid(message) };
      }
      redacted += done.count;
    }
    let json: string | undefined;
    if (this.patterns.length > 0) {
      // Many strings: one search of the serialized value usually shows that no pattern matches anywhere (the text
      // is needed anyway), sparing a walk of every string. A few (long) ones are searched one by one at once.
      if (!hasFewStrings(value)) {
        json = JSON.stringify(value);
        if (!mayMatchInJson(json, this.patterns)) return this.result(value, json, limit, dropped, redacted);
      }
      const matched = redactMatches(value, this.patterns);
      value = matched.value;
      redacted += matched.count;
      if (matched.count > 0) json = undefined; // strings changed: serialize again
    }
    // Always the parsed value serialized, never the body's own text: a text with a key twice parses to its last
    // value, so the text could carry a first one that was never validated (or selected, or redacted).
    json ??= JSON.stringify(value);
    // Keys and numbers are not string values: a match there is redacted in the value too (a number becomes the
    // redacted text of it, a key is renamed), so the text content stays the JSON of structuredContent.
    if (this.patterns.length > 0 && matchesOutsideStrings(value, this.patterns, json)) {
      const outside = redactKeysAndNumbers(value, this.patterns);
      value = outside.value;
      redacted += outside.count;
      json = JSON.stringify(value);
    }
    return this.result(value, json, limit, dropped, redacted);
  }

  /** The result of a shaped value whose JSON is `json` (the text content and `structuredContent` alike). */
  private result(value: unknown, json: string, limit: Limit, dropped: number, redacted: number): ShapeOutcome {
    const content = `[{"type":"text","text":${JSON.stringify(json)}}]`;
    const resultJson = isJsonObject(value)
      ? `{"content":${content},"structuredContent":${json}}`
      : `{"content":${content}}`;
    return withinLimit(resultJson, json, limit, this.counts(dropped, redacted));
  }

  /**
   * The parsed body, when it is JSON, and whether it may hold huge numbers; or why it is refused. A body is tried as
   * JSON whatever its content type: a backend that labels JSON `text/plain` (or sends no type) must not slip past
   * `fields` and `redact`. The label only decides what a body that is not JSON is: an error when it said JSON.
   */
  private parse(
    text: string,
    contentType: string,
  ): ShapeOutcome | { value: unknown; parsed: boolean; hugeNumbers: boolean } {
    if (text === '') return { value: undefined, parsed: false, hugeNumbers: false };
    const declaredJson = contentType.includes('json');
    // Before parsing: JSON.parse spends microseconds per level, so a 4 MiB body of "[" would block for seconds.
    const scan = scanJsonText(text, MAX_RESPONSE_DEPTH);
    if (scan.tooDeep) return { ok: false, code: 'OUTPUT_INVALID', message: responseMessages.tooDeep };
    try {
      return { value: JSON.parse(text), parsed: true, hugeNumbers: scan.hugeNumbers };
    } catch {
      if (this.validator === undefined && declaredJson) {
        return { ok: false, code: 'SERVICE_BAD_RESPONSE', message: 'Service error: invalid JSON response' };
      }
      return { value: undefined, parsed: false, hugeNumbers: false };
    }
  }

  /** A body that is not JSON (text, XML, or empty): only patterns and the size limit apply. */
  private shapeText(text: string, contentType: string, limit: Limit): ShapeOutcome {
    if (text === '') return { ok: true, resultJson: '{"content":[]}', counts: this.counts(0, 0) };
    if (contentType !== '' && !contentType.startsWith('text/') && !contentType.includes('xml')) {
      return { ok: false, code: 'SERVICE_BAD_RESPONSE', message: 'Service error: unsupported response type' };
    }
    const shown = this.patterns.length > 0 ? redactText(text, this.patterns) : text;
    return withinLimit(
      `{"content":[{"type":"text","text":${JSON.stringify(shown)}}]}`,
      shown,
      limit,
      this.counts(0, shown === text ? 0 : 1),
    );
  }

  private counts(dropped: number, redacted: number): ShapeCounts | undefined {
    return this.counted ? { fields_dropped: dropped, redacted } : undefined;
  }
}

function tooLarge(bytes: number, limit: number): ShapeOutcome {
  return { ok: false, code: 'RESPONSE_TOO_LARGE', message: responseMessages.tooLarge(bytes, limit) };
}

/** What a result is measured against: every byte of it (`whole`, the tool's maxBytes), or each copy of the value. */
interface Limit {
  readonly bytes: number;
  readonly whole: boolean;
}

/** The result, when it fits `limit`: as a whole, or `copy` (the value's text, which the result holds twice). */
function withinLimit(resultJson: string, copy: string, limit: Limit, counts: ShapeCounts | undefined): ShapeOutcome {
  const measured = limit.whole ? resultJson : copy;
  // JSON text is mostly one byte a character: the exact count only when the length comes near the limit
  const bytes = measured.length * 3 <= limit.bytes ? measured.length : Buffer.byteLength(measured);
  return bytes > limit.bytes ? tooLarge(bytes, limit.bytes) : { ok: true, resultJson, counts };
}
