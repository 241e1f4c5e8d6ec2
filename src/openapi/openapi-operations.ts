import { BACKEND_METHODS, type BackendMethod } from '../config';
import type { InputSpec } from '../schema';
import { toolDescription } from '../schema';
import { compileToolSchema, isJsonObject } from '../validation';
import { childPointer } from './json-pointer';
import type { OpenApiDocument } from './load-openapi-document';
import { OpenApiError } from './openapi-error';
import { operationInput, UnsupportedOperationError, type OperationInput } from './operation-input';
import { operationOutput } from './operation-output';
import { partialInputSpec, toInputSpec } from './to-input-spec';
import { SchemaTranslator } from './translate-schema';

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** One operation of a document, ready to become a `Service`. */
export interface OpenApiOperation {
  /** `operationId`, or `"GET /pets/{id}"` when it has none. */
  readonly key: string;
  /** The tool name it gets unless overridden: `operationId`, or the method and path with `_` for other characters. */
  readonly defaultName: string;
  /** `"POST /pets"`, for messages. */
  readonly label: string;
  readonly method: BackendMethod;
  /** The path template, e.g. `/pets/{petId}`. */
  readonly path: string;
  /** The operation's own server URL (`servers[0]` of the operation or its path), when it sets one. */
  readonly server?: string;
  /** `summary` and `description`, joined by a line break. */
  readonly text: string;
  readonly input: OperationInput;
  /** Declared input equivalent to the parameters' schemas, when there is one (else `inputSchema` carries them). */
  readonly inputSpec?: InputSpec;
  /** The translated input schema (the root of `input.parameters`). */
  readonly inputSchema: Json;
  /** `text` plus the call-shape line of parameters with nested required fields (as for hand-written tools). */
  readonly description: string;
  /** The first 2xx JSON object schema, translated for output. */
  readonly outputSchema?: Json;
  /** Whether the first 2xx JSON response is an array: a `redact` path then starts with `[]`. */
  readonly answersArray: boolean;
}

/** An operation that cannot be served (header or cookie parameters, a non-JSON body, an unsupported method). */
export interface SkippedOperation {
  readonly key: string;
  readonly defaultName: string;
  readonly label: string;
  readonly reason: string;
}

/**
 * An operation the gateway cannot take as the document writes it (a schema it cannot compile, a parameter it
 * would send otherwise than meant, two parameters with one name): an error when it is exposed.
 */
export interface RefusedOperation {
  readonly key: string;
  readonly defaultName: string;
  readonly label: string;
  /** `operation KEY (METHOD /path): POINTER: REASON`. */
  readonly message: string;
}

/** The operations of a document, and those it cannot serve. */
export interface OpenApiOperations {
  readonly operations: readonly OpenApiOperation[];
  readonly skipped: readonly SkippedOperation[];
  /** In document order; the caller refuses those it exposes. */
  readonly refused: readonly RefusedOperation[];
}

/**
 * Every operation of a document, in document order, mapped to a tool's parts.
 *
 * @param satisfiedHeaders lower-cased header names the services send on every call (such header parameters are
 * not a reason to skip an operation)
 * Operations the gateway cannot take are returned in `refused` rather than thrown, so a caller exposing only
 * other operations of the document can still serve those.
 */
export function openApiOperations(doc: OpenApiDocument, satisfiedHeaders: ReadonlySet<string>): OpenApiOperations {
  const operations: OpenApiOperation[] = [];
  const skipped: SkippedOperation[] = [];
  const refused: RefusedOperation[] = [];
  const paths = isJsonObject(doc.document.paths) ? doc.document.paths : {};
  for (const path of Object.keys(paths)) {
    const pathPointer = childPointer('#/paths', path);
    const item = follow(doc, paths[path], pathPointer);
    for (const method of METHODS) {
      const op = item.value[method];
      if (!isJsonObject(op)) continue;
      const pointer = childPointer(item.pointer, method);
      const upper = method.toUpperCase();
      const label = `${upper} ${path}`;
      const operationId = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : undefined;
      const key = operationId ?? label;
      const defaultName = operationId ?? sanitizedName(method, path);
      if (!(BACKEND_METHODS as readonly string[]).includes(upper)) {
        skipped.push({ key, defaultName, label, reason: `the method ${upper} is not supported` });
        continue;
      }
      try {
        operations.push(
          mapOperation(
            doc,
            { item, op, pointer, method: upper as BackendMethod, path, label, key, defaultName },
            satisfiedHeaders,
          ),
        );
      } catch (err) {
        if (err instanceof UnsupportedOperationError) {
          skipped.push({ key, defaultName, label, reason: err.message });
          continue;
        }
        const where = err instanceof OpenApiError ? `${err.pointer}: ${err.reason}` : (err as Error).message;
        refused.push({ key, defaultName, label, message: `operation ${describe(key, label)}: ${where}` });
      }
    }
  }
  return { operations, skipped, refused };
}

/** `createTicket (POST /tickets)`, or `POST /tickets` for an operation without an id. */
export function describe(key: string, label: string): string {
  return key === label ? label : `${key} (${label})`;
}

/** `GET /{comicId}/info.0.json` → `get_comicId_info_0_json`. */
export function sanitizedName(method: string, path: string): string {
  return `${method.toLowerCase()} ${path}`.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
}

interface OperationPlace {
  readonly item: { readonly value: Json; readonly pointer: string };
  readonly op: Json;
  readonly pointer: string;
  readonly method: BackendMethod;
  readonly path: string;
  readonly label: string;
  readonly key: string;
  readonly defaultName: string;
}

function mapOperation(
  doc: OpenApiDocument,
  place: OperationPlace,
  satisfiedHeaders: ReadonlySet<string>,
): OpenApiOperation {
  const { item, op, pointer, method, path } = place;
  const input = new SchemaTranslator(doc.document, doc.version, 'input');
  const parameters = mergedParameters(doc, item, op, pointer);
  const body =
    op.requestBody === undefined ? undefined : follow(doc, op.requestBody, childPointer(pointer, 'requestBody'));
  const mapped = operationInput(input, parameters, body, method, satisfiedHeaders);
  const inputSpec = toInputSpec(mapped.parameters);
  const inputSchema = rootSchema(mapped);
  const text = [op.summary, op.description]
    .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    .map((s) => s.trim())
    .join('\n');
  const description = toolDescription(text, inputSpec ?? partialInputSpec(mapped.parameters));
  const output = new SchemaTranslator(doc.document, doc.version, 'output');
  const { schema: outputSchema, answersArray } = operationOutput(
    output,
    op.responses,
    childPointer(pointer, 'responses'),
  );
  checkCompiles(inputSchema, pointer, 'input');
  if (outputSchema !== undefined) checkCompiles(outputSchema, childPointer(pointer, 'responses'), 'output');
  const server = serverOf(op) ?? serverOf(item.value);
  return {
    key: place.key,
    defaultName: place.defaultName,
    label: place.label,
    method,
    path,
    ...(server !== undefined ? { server } : {}),
    text,
    input: mapped,
    ...(inputSpec !== undefined ? { inputSpec } : {}),
    inputSchema,
    description,
    ...(outputSchema !== undefined ? { outputSchema } : {}),
    answersArray,
  };
}

/** What the gateway's validator cannot take (a schema that does not compile) is refused here, with the operation. */
function checkCompiles(schema: Json, pointer: string, side: string): void {
  const compiled = compileToolSchema(schema);
  if (!compiled.ok)
    throw new OpenApiError(pointer, `the ${side} schema does not compile in the gateway: ${compiled.error}`);
}

/** The translated input as one tool schema: a closed root object, with the `$defs` its parameters refer to. */
function rootSchema(input: OperationInput): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const p of input.parameters) {
    Object.defineProperty(properties, p.name, {
      value: p.schema,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    if (p.required) required.push(p.name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(input.defs !== undefined ? { $defs: input.defs } : {}),
  };
}

/** Path-level parameters, overridden by the operation's own of the same name and location; `$ref`s followed. */
function mergedParameters(
  doc: OpenApiDocument,
  item: { readonly value: Json; readonly pointer: string },
  op: Json,
  pointer: string,
): { value: Json; pointer: string }[] {
  const list = (owner: Json, at: string) =>
    Array.isArray(owner.parameters)
      ? owner.parameters.map((p, i) => follow(doc, p, childPointer(childPointer(at, 'parameters'), i)))
      : [];
  const merged = new Map<string, { value: Json; pointer: string }>();
  for (const p of [...list(item.value, item.pointer), ...list(op, pointer)]) {
    merged.set(`${String(p.value.in)} ${String(p.value.name)}`, p);
  }
  return [...merged.values()];
}

function follow(doc: OpenApiDocument, value: unknown, pointer: string): { value: Json; pointer: string } {
  const { schema, pointer: at } = isJsonObject(value)
    ? new SchemaTranslator(doc.document, doc.version, 'input').follow(value, pointer)
    : { schema: value, pointer };
  if (!isJsonObject(schema)) throw new OpenApiError(at, 'expected an object');
  return { value: schema, pointer: at };
}

function serverOf(owner: Json): string | undefined {
  return Array.isArray(owner.servers) && owner.servers.length > 0 ? serverUrl(owner.servers[0]) : undefined;
}

/** A server object's URL with its variables' defaults filled in. */
export function serverUrl(server: unknown): string | undefined {
  if (!isJsonObject(server) || typeof server.url !== 'string') return undefined;
  const variables = isJsonObject(server.variables) ? server.variables : {};
  return server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isJsonObject(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
}
