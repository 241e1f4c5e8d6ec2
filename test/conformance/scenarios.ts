/**
 * Which server scenarios of `@modelcontextprotocol/conformance` apply to a tools-only gateway, what each must
 * show, and why the others do not apply. Every scenario the installed suite knows must be in exactly one of the
 * two tables, so upgrading the suite fails the test until a new scenario is classified.
 */

/** A scenario the gateway must pass. */
export interface ApplicableScenario {
  /** What the scenario exercises on this gateway. */
  readonly covers: string;
  /** Check ids that must report `SUCCESS` (an empty list means the scenario's checks only inform; see `infoChecks`). */
  readonly successChecks: readonly string[];
  /** Check ids that must be present with status `INFO` (the suite's own "does not apply here" verdict). @default [] */
  readonly infoChecks?: readonly string[];
}

/**
 * The applicable scenarios. None of them may report `FAILURE` or `WARNING`.
 * Tool names are the suite's: the gateway serves them as ordinary HTTP-backed tools (see `conformance-gateway.ts`).
 */
export const APPLICABLE_SCENARIOS: Readonly<Record<string, ApplicableScenario>> = {
  'server-initialize': {
    covers: 'initialize + notifications/initialized with the official SDK client (protocol 2025-11-25)',
    successChecks: ['server-initialize'],
  },
  ping: {
    covers: 'ping answers an empty result',
    successChecks: ['ping'],
  },
  'tools-list': {
    covers: 'tools/list: every tool has a name, a description and an inputSchema',
    successChecks: ['tools-list'],
  },
  'tools-call-simple-text': {
    covers: 'tools/call of a parameterless tool (`test_simple_text`): a 2xx JSON backend answer becomes text content',
    successChecks: ['tools-call-simple-text'],
  },
  'tools-call-error': {
    covers: 'tools/call of `test_error_handling`: a backend HTTP 500 becomes `isError: true` with a text reason',
    successChecks: ['tools-call-error'],
  },
  'json-schema-2020-12': {
    covers:
      'a raw 2020-12 inputSchema (`$schema`, `$defs`/`$ref`, `additionalProperties: false`) is advertised unchanged (SEP-1613)',
    successChecks: [
      'json-schema-2020-12-tool-found',
      'json-schema-2020-12-$schema',
      'json-schema-2020-12-$defs',
      'json-schema-2020-12-additionalProperties',
    ],
  },
  'server-sse-multiple-streams': {
    covers: 'three concurrent POSTs on one session are all accepted (the gateway answers each with JSON)',
    successChecks: ['server-accepts-multiple-post-streams'],
    infoChecks: ['server-sse-streams-functional'],
  },
  'server-sse-polling': {
    covers:
      'a session tools/call of `test_reconnection` with Accept: SSE and JSON; the gateway answers JSON, so the ' +
      'SEP-1699 priming/retry/resume checks do not apply (the suite records this as INFO, not as a failure)',
    successChecks: [],
    infoChecks: ['server-sse-content-type'],
  },
  'dns-rebinding-protection': {
    covers: 'a foreign Host/Origin gets HTTP 4xx (403), a localhost Host/Origin gets 2xx',
    successChecks: ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
  },
};

/** Why a scenario does not apply, and how the gateway is expected to refuse what it asks for. */
export interface NotApplicableScenario {
  readonly reason: string;
  /** The error the suite reports when it runs the scenario anyway: the gateway's clean JSON-RPC refusal. */
  readonly refusal: RegExp;
}

const methodNotFound = (method: string): RegExp =>
  new RegExp(`^Failed: MCP error -32601: Method not found: ${method.replace('/', '\\/')}$`);
const unknownTool = (name: string): RegExp => new RegExp(`^Failed: MCP error -32602: Unknown tool: \`${name}\`$`);

const NO_LOGGING = 'the gateway offers tools only; it has no `logging` capability (logs go to its own stdout)';
const NO_RESOURCES = 'the gateway offers tools only, no `resources` capability';
const NO_PROMPTS = 'the gateway offers tools only, no `prompts` capability';
const TEXT_ONLY =
  'a gateway tool is an HTTP service whose JSON answer becomes text + structuredContent; it never produces';

/** Scenarios that need features a tools-only gateway does not offer by design. */
export const NOT_APPLICABLE_SCENARIOS: Readonly<Record<string, NotApplicableScenario>> = {
  'logging-set-level': { reason: NO_LOGGING, refusal: methodNotFound('logging/setLevel') },
  'completion-complete': {
    reason: 'completions complete prompt/resource-template arguments; the gateway has neither',
    refusal: methodNotFound('completion/complete'),
  },
  'tools-call-image': { reason: `${TEXT_ONLY} image content`, refusal: unknownTool('test_image_content') },
  'tools-call-audio': { reason: `${TEXT_ONLY} audio content`, refusal: unknownTool('test_audio_content') },
  'tools-call-embedded-resource': {
    reason: `${TEXT_ONLY} embedded resources`,
    refusal: unknownTool('test_embedded_resource'),
  },
  'tools-call-mixed-content': {
    reason: `${TEXT_ONLY} image or resource content`,
    refusal: unknownTool('test_multiple_content_types'),
  },
  'tools-call-with-logging': {
    reason: `${NO_LOGGING}; a backend cannot send log notifications through it`,
    refusal: methodNotFound('logging/setLevel'),
  },
  'tools-call-with-progress': {
    reason: 'a service call is one HTTP request/response; the gateway sends no progress notifications',
    refusal: unknownTool('test_tool_with_progress'),
  },
  'tools-call-sampling': {
    reason: 'the gateway never sends server-to-client requests (sampling/createMessage)',
    refusal: unknownTool('test_sampling'),
  },
  'tools-call-elicitation': {
    reason: 'the gateway never sends server-to-client requests (elicitation/create)',
    refusal: unknownTool('test_elicitation'),
  },
  'elicitation-sep1034-defaults': {
    reason: 'elicitation (server-to-client requests) is not offered',
    refusal: unknownTool('test_elicitation_sep1034_defaults'),
  },
  'elicitation-sep1330-enums': {
    reason: 'elicitation (server-to-client requests) is not offered',
    refusal: unknownTool('test_elicitation_sep1330_enums'),
  },
  'resources-list': { reason: NO_RESOURCES, refusal: methodNotFound('resources/list') },
  'resources-read-text': { reason: NO_RESOURCES, refusal: methodNotFound('resources/read') },
  'resources-read-binary': { reason: NO_RESOURCES, refusal: methodNotFound('resources/read') },
  'resources-templates-read': { reason: NO_RESOURCES, refusal: methodNotFound('resources/read') },
  'resources-subscribe': { reason: NO_RESOURCES, refusal: methodNotFound('resources/subscribe') },
  'resources-unsubscribe': { reason: NO_RESOURCES, refusal: methodNotFound('resources/subscribe') },
  'prompts-list': { reason: NO_PROMPTS, refusal: methodNotFound('prompts/list') },
  'prompts-get-simple': { reason: NO_PROMPTS, refusal: methodNotFound('prompts/get') },
  'prompts-get-with-args': { reason: NO_PROMPTS, refusal: methodNotFound('prompts/get') },
  'prompts-get-embedded-resource': { reason: NO_PROMPTS, refusal: methodNotFound('prompts/get') },
  'prompts-get-with-image': { reason: NO_PROMPTS, refusal: methodNotFound('prompts/get') },
};
