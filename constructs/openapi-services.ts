import * as path from 'node:path';
import { Annotations } from 'cdktf';
import { Construct } from 'constructs';
import { hasUserInfo, isHttpUrl, NAME_RULE, TOOL_NAME_RE, USER_INFO_ADVICE } from '../src/config';
import {
  describe,
  loadOpenApiDocument,
  openApiOperations,
  partialInputSpec,
  serverUrl,
  type OpenApiOperation,
  type RefusedOperation,
  type SkippedOperation,
} from '../src/openapi';
import { toolDescription } from '../src/schema';
import { quote } from './docker-names';
import type { Secret } from './secret';
import type { ServiceResponse } from './service-response';
import { Service, type ServiceContainer } from './service';
import { checkKnownProps, propsReport, type PropKeys } from './known-props';

/** What `OpenApiServices.overrides` may change for one operation. */
export interface OpenApiOperationOverride {
  /**
   * The tool name, `^[A-Za-z0-9_.-]{1,64}$`.
   * @default - the operationId, or the method and path with each run of other characters written `_`
   */
  readonly name?: string;
  /**
   * What the tool does, for the agent (a call-shape line is still added for nested required fields).
   * @default - the operation's summary and description
   */
  readonly description?: string;
  /**
   * How long the gateway waits for the backend, in milliseconds (1-600000).
   * @default 10000
   */
  readonly timeoutMs?: number;
  /**
   * Scopes a caller needs to see and call this tool (as `Service.requiredScopes`).
   * @default - none
   */
  readonly requiredScopes?: readonly string[];
  /**
   * Response controls of this operation's tool (as `Service.response`): field selection, redaction, a size cap.
   * @default - none (the response is checked against the operation's 2xx schema, when it has one, and passed on)
   */
  readonly response?: ServiceResponse;
}

/** Props of `OpenApiServices`. */
export interface OpenApiServicesProps {
  /** The OpenAPI 3.0 or 3.1 document (JSON or YAML), a file path (relative paths from the working directory). */
  readonly document: string;
  /**
   * Where the operations' paths are appended: an absolute `http://` or `https://` URL.
   * @default - the operation's own server, else the document's first server URL (variables at their defaults)
   */
  readonly baseUrl?: string;
  /**
   * The operations to expose: operationIds, or `"GET /pets/{petId}"` (or the generated name) for an operation
   * without one. A listed operation that cannot be served is an error.
   * @default - every operation; those that cannot be served (header or cookie parameters, a non-JSON body) are
   * skipped with a warning
   */
  readonly operations?: readonly string[];
  /**
   * Headers added to every operation's endpoint (literal values or `Secret.env('NAME')`). A header parameter of
   * the document that these send is not a reason to skip its operation.
   * @default - none
   */
  readonly headers?: Readonly<Record<string, string | Secret>>;
  /**
   * Per operation (keyed like `operations`): the tool name, description, timeout and scopes.
   * @default - none
   */
  readonly overrides?: Readonly<Record<string, OpenApiOperationOverride>>;
  /**
   * Also deploy the backend (as `Service.container`), once for all the operations.
   * @default - the backend is deployed elsewhere
   */
  readonly container?: ServiceContainer;
}

/** Every prop of {@link OpenApiServicesProps} (the compiler keeps it whole). */
const OPENAPI_SERVICES_PROPS: PropKeys<OpenApiServicesProps> = {
  container: true,
  document: true,
  baseUrl: true,
  operations: true,
  headers: true,
  overrides: true,
};

/**
 * The operations of an OpenAPI document as `Service`s, one tool per operation, their input schemas generated from
 * the document (path and query parameters, and a JSON body's properties, as top-level parameters).
 *
 * @example
 * const crm = new OpenApiServices(stack, 'crm', {
 *   document: 'openapi/crm.yaml',
 *   baseUrl: 'http://crm:8080',
 *   operations: ['getCustomer', 'createTicket'],
 *   headers: { Authorization: Secret.env('CRM_TOKEN') },
 *   overrides: { createTicket: { name: 'create_ticket', timeoutMs: 5000 } },
 * });
 * new Gateway(stack, 'support', { services: crm.services });
 */
export class OpenApiServices extends Construct {
  /** The generated services, in document order: hand them to a `Gateway`. */
  public readonly services: readonly Service[];
  /** The operations left out, with the reason (each also a synth warning). */
  public readonly skippedOperations: readonly SkippedOperation[];

  public constructor(scope: Construct, id: string, props: OpenApiServicesProps) {
    super(scope, id);
    const report = propsReport(this, `OpenApiServices '${id}'`);
    const { fail } = report;
    checkKnownProps(props, OPENAPI_SERVICES_PROPS, report);
    if (typeof props.document !== 'string' || props.document === '') {
      fail(`'document' (${quote(props.document)}) must be the path of an OpenAPI 3.0 or 3.1 file (JSON or YAML)`);
    }
    let doc;
    let mapped;
    try {
      doc = loadOpenApiDocument(path.resolve(props.document));
      mapped = openApiOperations(doc, new Set(Object.keys(props.headers ?? {}).map((h) => h.toLowerCase())));
    } catch (err) {
      throw new Error(`OpenApiServices '${id}': ${(err as Error).message}`);
    }
    // an operation the gateway cannot take fails the synthesis when it is exposed: listed, or every one is
    if (props.operations === undefined && mapped.refused.length > 0) {
      fail(
        `${mapped.refused[0].message} (or, to expose the document's other operations without it, list them in 'operations')`,
      );
    }
    const selected = select(mapped.operations, mapped.skipped, mapped.refused, props.operations, fail);
    this.skippedOperations = props.operations === undefined ? mapped.skipped : [];
    for (const skip of this.skippedOperations) {
      Annotations.of(this).addWarning(
        `OpenApiServices '${id}': operation ${describe(skip.key, skip.label)} is skipped: ${skip.reason}`,
      );
    }
    const overrides = checkOverrides(props.overrides, selected, fail);
    const names = new Map<string, OpenApiOperation>();
    const services: Service[] = [];
    const documentServer = Array.isArray(doc.document.servers) ? serverUrl(doc.document.servers[0]) : undefined;
    for (const op of selected) {
      const override = overrides.get(op) ?? {};
      const name = override.name ?? op.defaultName;
      if (typeof name !== 'string' || !TOOL_NAME_RE.test(name)) {
        fail(
          `operation ${describe(op.key, op.label)}: the tool name ${quote(name)} breaks the tool-name rule (${NAME_RULE}); ` +
            `set overrides[${quote(op.key)}].name to a valid tool name`,
        );
      }
      const clash = names.get(name);
      if (clash !== undefined) {
        fail(
          `operations ${describe(clash.key, clash.label)} and ${describe(op.key, op.label)} both become the tool ` +
            `${quote(name)}: set overrides[${quote(op.key)}].name to another name`,
        );
      }
      names.set(name, op);
      const base = baseUrlOf(props.baseUrl, op, documentServer, fail);
      services.push(this.service(op, name, base, override, props, services.length === 0));
    }
    this.services = services;
  }

  private service(
    op: OpenApiOperation,
    name: string,
    baseUrl: string,
    override: OpenApiOperationOverride,
    props: OpenApiServicesProps,
    first: boolean,
  ): Service {
    const unreachable = op.answersArray ? override.response?.redact?.find((p) => !p.startsWith('[]')) : undefined;
    if (unreachable !== undefined) {
      throw new Error(
        `OpenApiServices '${this.node.id}': response.redact ${quote(unreachable)} of operation ${describe(op.key, op.label)} ` +
          `names a field, but the operation answers a JSON array: write ${quote(`[].${unreachable}`)} to redact it in every element`,
      );
    }
    const sendsBody = op.method !== 'GET' && op.method !== 'DELETE';
    const queryParams = sendsBody && op.input.queryParams.length > 0 ? op.input.queryParams : undefined;
    const endpoint = {
      url: baseUrl + op.path,
      method: op.method,
      ...(props.headers !== undefined ? { headers: props.headers } : {}),
      ...(queryParams !== undefined ? { queryParams } : {}),
      ...(op.input.bodyParam !== undefined ? { bodyParam: op.input.bodyParam } : {}),
    };
    const common = {
      name,
      endpoint,
      ...(override.timeoutMs !== undefined ? { timeoutMs: override.timeoutMs } : {}),
      ...(override.requiredScopes !== undefined ? { requiredScopes: override.requiredScopes } : {}),
      // the first 2xx JSON schema when it is an object's (`type: object`), with the document's own meaning (open
      // unless it says otherwise); any other answer leaves the tool without declared output
      ...(op.outputSchema?.type === 'object' ? { outputSchema: op.outputSchema as Record<string, unknown> } : {}),
      ...(override.response !== undefined ? { response: override.response } : {}),
      ...(first && props.container !== undefined ? { container: props.container } : {}),
    };
    if (op.inputSpec !== undefined) {
      // declared input: exactly what a hand-written Service with the same input synthesizes
      return new Service(this, name, { ...common, description: override.description ?? op.text, input: op.inputSpec });
    }
    const description =
      override.description === undefined
        ? op.description
        : toolDescription(override.description, partialInputSpec(op.input.parameters));
    return new Service(this, name, { ...common, description, inputSchema: op.inputSchema });
  }
}

/** The operations `operations` lists (by operationId, `"METHOD /path"` or generated name), or all of them. */
function select(
  operations: readonly OpenApiOperation[],
  skipped: readonly SkippedOperation[],
  refused: readonly RefusedOperation[],
  wanted: readonly string[] | undefined,
  fail: (m: string) => never,
): OpenApiOperation[] {
  if (wanted === undefined) return [...operations];
  if (!Array.isArray(wanted)) fail(`'operations' must be a list of operationIds, e.g. ['getCustomer']`);
  const chosen: OpenApiOperation[] = [];
  for (const entry of wanted) {
    const op = operations.find((o) => matches(o, entry));
    if (op !== undefined) {
      if (!chosen.includes(op)) chosen.push(op);
      continue;
    }
    const refusal = refused.find((o) => matches(o, entry));
    if (refusal !== undefined) fail(refusal.message);
    const skip = skipped.find((o) => matches(o, entry));
    if (skip !== undefined) {
      fail(
        `operation ${describe(skip.key, skip.label)} is listed in 'operations' but cannot be served: ${skip.reason}`,
      );
    }
    const known = [...operations, ...skipped, ...refused].map((o) => o.key);
    const shown = known
      .slice(0, 10)
      .map((k) => quote(k))
      .join(', ');
    fail(
      `'operations' lists ${quote(entry)}, which is no operation of the document ` +
        `(operations: ${shown}${known.length > 10 ? `, … ${known.length - 10} more` : ''})`,
    );
  }
  return chosen;
}

function matches(op: { key: string; label: string; defaultName: string }, entry: string): boolean {
  return entry === op.key || entry === op.label || entry === op.defaultName;
}

/** What an override may set: the keys of {@link OpenApiOperationOverride}. */
const OVERRIDE_KEYS: readonly string[] = [
  'name',
  'description',
  'timeoutMs',
  'requiredScopes',
  'response',
] satisfies (keyof OpenApiOperationOverride)[];

function checkOverrides(
  overrides: OpenApiServicesProps['overrides'],
  selected: readonly OpenApiOperation[],
  fail: (m: string) => never,
): Map<OpenApiOperation, OpenApiOperationOverride> {
  const out = new Map<OpenApiOperation, OpenApiOperationOverride>();
  for (const [entry, override] of Object.entries(overrides ?? {})) {
    const op = selected.find((o) => matches(o, entry));
    if (op === undefined) {
      fail(
        `overrides[${quote(entry)}] names no exposed operation: use an operationId (or "METHOD /path") listed in the document`,
      );
    }
    for (const key of Object.keys(override)) {
      if (!OVERRIDE_KEYS.includes(key)) {
        fail(
          `overrides[${quote(entry)}].${key} is not supported: use name, description, timeoutMs, requiredScopes or response`,
        );
      }
    }
    out.set(op, override);
  }
  return out;
}

function baseUrlOf(
  baseUrl: string | undefined,
  op: OpenApiOperation,
  documentServer: string | undefined,
  fail: (m: string) => never,
): string {
  const url = baseUrl ?? op.server ?? documentServer;
  const from =
    baseUrl !== undefined
      ? "'baseUrl'"
      : op.server !== undefined
        ? "the operation's server"
        : "the document's first server";
  if (url === undefined) {
    return fail(`the document has no servers: set 'baseUrl' to where the API is served (e.g. 'http://crm:8080')`);
  }
  if (hasUserInfo(url)) fail(`${from} ${USER_INFO_ADVICE}`);
  if (!isHttpUrl(url) || url.includes('{')) {
    fail(
      `${from} ${quote(url)} is not an absolute http:// or https:// URL: set 'baseUrl' to where the API is served ` +
        `(e.g. 'http://crm:8080')`,
    );
  }
  return url.replace(/\/+$/, '');
}
