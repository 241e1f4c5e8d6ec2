/**
 * What each 0.2.0-alpha scenario must show at `--spec-version 2026-07-28` on this tools-only gateway, read from
 * the suite's own source (`conformance-2026/dist/index.js`, 0.2.0-alpha.12). Check ids repeat inside a scenario
 * (one per probe), so the expected SUCCESS ids are a list with repeats, compared sorted.
 *
 * A check that cannot apply to a gateway that only forwards tools to HTTP services is listed in `notApplicable`
 * with the status the suite gives it and why; every other check must be SUCCESS (no FAILURE, no WARNING).
 */

export interface NotApplicableCheck {
  /** The status the suite reports for it here. */
  readonly status: 'FAILURE' | 'SKIPPED' | 'WARNING' | 'INFO';
  readonly reason: string;
}

export interface Scenario2026 {
  readonly covers: string;
  /** Check ids that must be SUCCESS, with repeats, in any order. */
  readonly successChecks: readonly string[];
  /** Checks that do not apply, by id (every occurrence of the id must have the given status). */
  readonly notApplicable?: Readonly<Record<string, NotApplicableCheck>>;
}

const WIRE = 'wire-schema-valid';
const NO_PROMPTS_RESOURCES =
  'the gateway offers tools only: prompts/list, resources/list and resources/templates/list answer -32601';

export const SCENARIOS_2026: Readonly<Record<string, Scenario2026>> = {
  'server-stateless': {
    covers:
      'per-request _meta (-32602 + HTTP 400 when missing), server/discover (versions, capabilities, serverInfo in _meta), ' +
      '-32022 with supported/requested, -32020 on a header/_meta version mismatch, 404 + -32601 for removed and unknown ' +
      'methods, error ids echoed, subscriptions/listen (acknowledged first, tagged, filtered, list_changed on a real reload)',
    successChecks: [
      'sep-2575-request-meta-invalid-missing-meta',
      'sep-2575-http-server-meta-invalid-400',
      'sep-2575-request-meta-invalid-missing-protocol-version',
      'sep-2575-http-server-meta-invalid-400',
      'sep-2575-request-meta-invalid-missing-client-capabilities',
      'sep-2575-http-server-meta-invalid-400',
      'sep-2575-request-meta-client-info-optional',
      'sep-2575-server-implements-discover',
      'sep-2575-server-identifies-in-result-meta',
      'sep-2575-server-declares-prompts-in-discover',
      'sep-2575-discover-capabilities-match-handlers',
      'sep-2575-server-unsupported-version-error',
      'sep-2575-http-server-unsupported-version-400',
      'sep-2575-http-server-header-mismatch-400',
      'sep-2575-http-server-method-not-found-404-initialize',
      'sep-2575-http-server-method-not-found-404-ping',
      'sep-2575-http-server-method-not-found-404-logging-setlevel',
      'sep-2575-http-server-method-not-found-404-resources-subscribe',
      'sep-2575-http-server-method-not-found-404-resources-unsubscribe',
      'sep-2575-http-server-method-not-found-404',
      'sep-2575-http-server-no-independent-requests-on-stream',
      'sep-2575-server-no-log-without-loglevel',
      'sep-2575-server-sends-subscription-ack',
      'sep-2575-server-tags-subscription-id',
      'sep-2575-server-honors-notification-filter',
      'sep-2575-server-sends-tools-list-changed-on-subscription',
      'sep-2575-http-server-error-jsonrpc-id',
    ],
    notApplicable: {
      'sep-2575-server-rejects-undeclared-capability': {
        status: 'FAILURE',
        reason:
          'needs a server tool that requires the sampling client capability (`test_missing_capability`, -32021); a ' +
          'gateway tool is an HTTP call and never needs a client capability (the suite reports "Not testable")',
      },
      'sep-2575-missing-capability-http-400': {
        status: 'FAILURE',
        reason: 'the HTTP status of -32021, which the gateway never sends (same reason; "Not testable")',
      },
      'sep-2575-server-sends-prompts-list-changed-on-subscription': {
        status: 'SKIPPED',
        reason: 'the gateway has no prompts (no prompts.listChanged capability)',
      },
    },
  },
  'tools-list': {
    covers:
      'tools/list over the stateless wire: name, description, inputSchema; tool-name format; same order three times; schema-valid results',
    successChecks: ['tools-list', 'tools-name-format', 'tools-list-deterministic-order', WIRE],
  },
  caching: {
    covers: 'tools/list carries ttlMs (non-negative integer) and cacheScope (public|private)',
    successChecks: [
      'sep-2549-tools-list-caching-hints',
      'sep-2549-ttl-non-negative',
      'sep-2549-cache-scope-valid',
      WIRE,
    ],
    notApplicable: {
      'sep-2549-prompts-list-caching-hints': { status: 'FAILURE', reason: NO_PROMPTS_RESOURCES },
      'sep-2549-resources-list-caching-hints': { status: 'FAILURE', reason: NO_PROMPTS_RESOURCES },
      'sep-2549-resources-templates-list-caching-hints': { status: 'FAILURE', reason: NO_PROMPTS_RESOURCES },
      'sep-2549-resources-read-caching-hints': { status: 'SKIPPED', reason: 'no resources to read' },
    },
  },
  'http-header-validation': {
    covers:
      'Mcp-Method/Mcp-Name: mismatched, missing and case-changed values → HTTP 400 + -32020; header names in any case ' +
      'and whitespace around values accepted',
    successChecks: [
      // five refusals, each reported twice: HTTP 400, then the -32020 code
      ...Array<string>(5).fill('sep-2243-server-reject-invalid-headers'),
      ...Array<string>(5).fill('sep-2243-server-reject-error-code'),
      'sep-2243-server-accepts-whitespace-header-value',
      'sep-2243-header-name-case-insensitive',
      'sep-2243-header-name-case-insensitive',
      WIRE,
    ],
  },
  'dns-rebinding-protection': {
    covers:
      'server/discover with Host/Origin evil.example.com → 4xx (403); with the URL’s own localhost Host/Origin → 2xx',
    successChecks: ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
  },
};
