import { generateOutputSchema, type InputSpec } from '../src/schema';
import type { ResponseConfig } from '../src/config';
import { compileResponseControls, responseSettingsProblem } from '../src/response';
import { quote } from './docker-names';

/** What the gateway does to a service's 2xx response before the agent sees it. */
export interface ServiceResponse {
  /**
   * `'declared'` drops every field the declared `output` does not declare, at every depth (needs `output` or
   * `outputSchema`); `'all'` keeps them.
   * @default 'all'
   */
  readonly fields?: 'declared' | 'all';
  /**
   * Paths whose string values become `"[redacted]"`: field names joined by `.`, `[]` for every element of an array,
   * `*` for every key of an open map, `["key"]` for other keys (`'email'`, `'orders[].card_number'`). With a
   * declared output, each must name a declared string field.
   * @default - none
   */
  readonly redact?: readonly string[];
  /**
   * Named regular expressions (ECMAScript syntax, run on the gateway's linear-time engine): every match in any
   * string value, and in the text content, becomes `"[redacted]"`, e.g. `{ card: '\\b[0-9]{13,16}\\b' }`.
   * @default - none
   */
  readonly redactPatterns?: Readonly<Record<string, string>>;
  /**
   * The shaped result's JSON size limit in bytes (1-67108864); a larger result is an error result
   * `Service response too large: N bytes (limit M)`.
   * @default - the gateway's service response limit (4 MiB)
   */
  readonly maxBytes?: number;
}

/** The props of a `Service` about its response. */
export interface ServiceResponseProps {
  readonly output?: InputSpec;
  readonly outputSchema?: Record<string, unknown>;
  readonly response?: ServiceResponse;
}

/**
 * The config entries of a service's declared output and response controls, checked.
 * @param fail throws with the message prefixed by the service
 */
export function resolveResponse(
  props: ServiceResponseProps,
  fail: (message: string) => never,
): { output_schema?: Record<string, unknown>; response?: ResponseConfig } {
  if (props.output !== undefined && props.outputSchema !== undefined) {
    fail("set either 'output' (declared fields) or 'outputSchema' (a raw JSON Schema), not both");
  }
  let outputSchema: Record<string, unknown> | undefined;
  if (props.output !== undefined) {
    try {
      outputSchema = generateOutputSchema(props.output);
    } catch (err) {
      fail(`invalid 'output': ${(err as Error).message.replace(/^Invalid input spec/, 'Invalid output spec')}`);
    }
  } else if (props.outputSchema !== undefined) {
    const raw = props.outputSchema;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || raw.type !== 'object') {
      fail("outputSchema must be a JSON Schema with type: 'object' (MCP structured results are always a JSON object)");
    }
    outputSchema = raw;
  }
  if (outputSchema !== undefined) {
    const compiled = compileResponseControls({ output_schema: outputSchema }, true);
    if ('error' in compiled) {
      const source = props.output !== undefined ? "the schema generated from 'output'" : 'outputSchema';
      fail(
        `${source} does not compile: ${compiled.error.replace(/^output schema: /, '')}. ` +
          "Fix the JSON Schema (draft 2020-12) or declare 'output' instead",
      );
    }
  }
  const response = props.response;
  if (response === undefined) return outputSchema === undefined ? {} : { output_schema: outputSchema };
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    fail(`response (${quote(response)}) must be an object { fields?, redact?, redactPatterns?, maxBytes? }`);
  }
  for (const key of Object.keys(response)) {
    if (!['fields', 'redact', 'redactPatterns', 'maxBytes'].includes(key)) {
      fail(`response.${key} is not a response setting: use fields, redact, redactPatterns or maxBytes`);
    }
  }
  const found = responseSettingsProblem(response, outputSchema);
  if (found !== undefined) {
    const { setting, at } = found.where;
    const value =
      setting === 'redact' && at !== undefined
        ? (response.redact as readonly unknown[])[Number(at.slice(1, -1))]
        : setting === 'redactPatterns' && at !== undefined
          ? (response.redactPatterns as Record<string, unknown>)[at]
          : response[setting];
    const where = setting === 'redactPatterns' && at !== undefined ? `redactPatterns.${at}` : `${setting}${at ?? ''}`;
    const problem = found.problem.replace('declare its output', "declare 'output' (or 'outputSchema')");
    fail(`response.${where} (${quote(value)}) ${problem}`);
  }
  return {
    ...(outputSchema !== undefined ? { output_schema: outputSchema } : {}),
    response: {
      ...(response.fields !== undefined ? { fields: response.fields } : {}),
      ...(response.redact !== undefined && response.redact.length > 0 ? { redact: [...response.redact] } : {}),
      ...(response.redactPatterns !== undefined && Object.keys(response.redactPatterns).length > 0
        ? { redact_patterns: { ...response.redactPatterns } }
        : {}),
      ...(response.maxBytes !== undefined ? { max_bytes: response.maxBytes } : {}),
    },
  };
}
