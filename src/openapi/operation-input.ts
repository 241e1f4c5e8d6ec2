import { isJsonObject } from '../validation';
import { childPointer } from './json-pointer';
import { OpenApiError } from './openapi-error';
import { SchemaTranslator } from './translate-schema';

type Json = Record<string, unknown>;

/** Where a tool parameter comes from in the operation. */
export type ParameterOrigin = 'path' | 'query' | 'body';

/** One top-level tool parameter of an operation. */
export interface OperationParameter {
  readonly name: string;
  readonly origin: ParameterOrigin;
  readonly required: boolean;
  /** Its JSON Schema 2020-12 (translated; may refer to the root's `$defs`). */
  readonly schema: unknown;
}

/** The input of one operation: its parameters in order (path, query, then body), and where they are sent. */
export interface OperationInput {
  readonly parameters: readonly OperationParameter[];
  /** The parameters sent as the query (for a method that sends a body, the gateway must be told). */
  readonly queryParams: readonly string[];
  /** The parameter sent as the whole JSON body (`body`), when the body is not an object of properties. */
  readonly bodyParam?: string;
  /** `$defs` the parameters' schemas refer to. */
  readonly defs?: Json;
}

/** Why an operation cannot be served with its header, cookie or non-JSON parts (it is skipped or refused). */
export class UnsupportedOperationError extends Error {}

/** The media types read as JSON: `application/json`, `application/*+json` (with parameters) and `*\/*`. */
export function jsonMediaType(content: unknown): string | undefined {
  if (!isJsonObject(content)) return undefined;
  return Object.keys(content).find((type) =>
    /^(?:application\/(?:[A-Za-z0-9!#$&^_.-]+\+)?json|\*\/\*)\s*(?:;.*)?$/i.test(type.trim()),
  );
}

/**
 * The tool parameters of an operation. Path and query parameters become top-level parameters; a JSON request body
 * whose schema (after `$ref`s and merging `allOf`) is a closed object with properties contributes its properties;
 * any other JSON body becomes one parameter `body`.
 *
 * @param parameters the operation's parameter objects, path-level ones merged in (each with its pointer)
 * @param satisfiedHeaders lower-cased header names that the service's `headers` send on every call
 * @throws UnsupportedOperationError for header or cookie parameters, or a body that is not JSON
 * @throws OpenApiError for what the gateway cannot send or validate (with the pointer)
 */
export function operationInput(
  translator: SchemaTranslator,
  parameters: readonly { readonly value: Json; readonly pointer: string }[],
  requestBody: { readonly value: Json; readonly pointer: string } | undefined,
  method: string,
  satisfiedHeaders: ReadonlySet<string>,
): OperationInput {
  const out: OperationParameter[] = [];
  const queryParams: string[] = [];
  const taken = new Map<string, string>(); // name → "query parameter `x`" etc.
  const claim = (name: string, what: string, pointer: string): void => {
    const other = taken.get(name);
    if (other !== undefined) {
      throw new OpenApiError(
        pointer,
        `${what} collides with ${other}: both would be the tool parameter \`${name}\`; rename one in the document`,
      );
    }
    taken.set(name, what);
  };

  for (const { value: param, pointer } of parameters) {
    const where = param.in;
    const name = param.name as string;
    if (where === 'header' || where === 'cookie') {
      if (where === 'header' && satisfiedHeaders.has(name.toLowerCase())) continue;
      throw new UnsupportedOperationError(
        `${where} parameter \`${name}\` is not supported (only path and query parameters and a JSON body are)`,
      );
    }
    if (where !== 'path' && where !== 'query')
      throw new OpenApiError(childPointer(pointer, 'in'), `unknown "in" ${JSON.stringify(where)}`);
    if (param.content !== undefined) {
      throw new OpenApiError(
        childPointer(pointer, 'content'),
        `${where} parameter \`${name}\` is described with content; only parameters with a schema are supported`,
      );
    }
    const schema =
      param.schema === undefined ? {} : translator.translate(param.schema, childPointer(pointer, 'schema'));
    checkStyle(param, schema, pointer, translator);
    const described =
      typeof param.description === 'string' && isJsonObject(schema) && schema.description === undefined
        ? { ...schema, description: param.description }
        : schema;
    claim(name, `${where} parameter \`${name}\``, pointer);
    out.push({ name, origin: where, required: where === 'path' || param.required === true, schema: described });
    if (where === 'query') queryParams.push(name);
  }

  const bodyParam = requestBody === undefined ? undefined : bodyParameters(translator, requestBody, method, claim, out);
  const defs = translator.definitions();
  return { parameters: out, queryParams, ...(bodyParam !== undefined ? { bodyParam } : {}), ...(defs ? { defs } : {}) };
}

/** The request body's parameters (added to `out`); the name of the one whole-body parameter, if that is how. */
function bodyParameters(
  translator: SchemaTranslator,
  requestBody: { readonly value: Json; readonly pointer: string },
  method: string,
  claim: (name: string, what: string, pointer: string) => void,
  out: OperationParameter[],
): string | undefined {
  const { value: body, pointer } = requestBody;
  const content = body.content;
  const mediaType = jsonMediaType(content);
  if (mediaType === undefined) {
    const types = isJsonObject(content) ? Object.keys(content).join(', ') : 'none';
    throw new UnsupportedOperationError(`a request body of type ${types} is not supported (only JSON bodies are)`);
  }
  if (method === 'GET' || method === 'DELETE') {
    throw new UnsupportedOperationError(
      `a ${method} request with a body is not supported (its arguments go as the query)`,
    );
  }
  const mediaPointer = childPointer(childPointer(pointer, 'content'), mediaType);
  const media = (content as Json)[mediaType];
  const rawSchema = isJsonObject(media) ? media.schema : undefined;
  const schema = rawSchema === undefined ? {} : translator.translate(rawSchema, childPointer(mediaPointer, 'schema'));
  const required = body.required === true;
  // a recursive body is a $ref to its definition: its top level still flattens (the rest refers to $defs)
  const root =
    isJsonObject(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')
      ? translator.definitions()?.[schema.$ref.slice('#/$defs/'.length)]
      : schema;
  if (flattenable(root)) {
    const bodyRequired = Array.isArray(root.required) ? (root.required as string[]) : [];
    for (const [name, property] of Object.entries(root.properties as Json)) {
      claim(name, `body property \`${name}\``, childPointer(childPointer(mediaPointer, 'schema'), 'properties'));
      out.push({ name, origin: 'body', required: required && bodyRequired.includes(name), schema: property });
    }
  } else {
    claim('body', 'the request body (the parameter `body`)', mediaPointer);
    out.push({ name: 'body', origin: 'body', required, schema });
    return 'body';
  }
  return undefined;
}

/** A closed object of properties, nothing else: its properties can be top-level parameters. */
function flattenable(schema: unknown): schema is Json {
  if (!isJsonObject(schema) || !isJsonObject(schema.properties) || schema.additionalProperties !== false) return false;
  if (schema.type !== undefined && schema.type !== 'object') return false;
  const allowed = new Set(['type', 'properties', 'required', 'additionalProperties', 'description']);
  return Object.keys(schema).every((key) => allowed.has(key));
}

/**
 * The gateway fills path placeholders with one scalar each and sends query arrays as repeated keys
 * (`style: form`, `explode: true`, the OpenAPI default): other serializations would reach the service as
 * something else than the document says.
 */
function checkStyle(param: Json, schema: unknown, pointer: string, translator: SchemaTranslator): void {
  const name = param.name as string;
  const type = typeOf(schema, translator);
  if (param.in === 'path') {
    if (type === 'array' || type === 'object') {
      throw new OpenApiError(
        childPointer(pointer, 'schema'),
        `path parameter \`${name}\` is an ${type}; only scalar path parameters are supported`,
      );
    }
    if (param.style !== undefined && param.style !== 'simple') {
      throw new OpenApiError(
        childPointer(pointer, 'style'),
        `style ${JSON.stringify(param.style)} is not supported for path parameters (only simple)`,
      );
    }
    return;
  }
  if (param.style !== undefined && param.style !== 'form') {
    throw new OpenApiError(
      childPointer(pointer, 'style'),
      `style ${JSON.stringify(param.style)} is not supported for query parameters (only form, with arrays as repeated keys)`,
    );
  }
  if (type === 'object') {
    throw new OpenApiError(
      childPointer(pointer, 'schema'),
      `query parameter \`${name}\` is an object; the gateway sends an object as JSON text, not as the key=value pairs the document means`,
    );
  }
  if (type === 'array' && param.explode === false) {
    throw new OpenApiError(
      childPointer(pointer, 'explode'),
      `query parameter \`${name}\` has explode: false (comma-separated); only repeated keys (explode: true) are supported`,
    );
  }
}

function typeOf(schema: unknown, translator: SchemaTranslator): string | undefined {
  if (!isJsonObject(schema)) return undefined;
  let node: unknown = schema;
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) {
    node = translator.definitions()?.[schema.$ref.slice('#/$defs/'.length)];
  }
  if (!isJsonObject(node)) return undefined;
  if (typeof node.type === 'string') return node.type;
  if (Array.isArray(node.type)) return node.type.find((t) => t !== 'null') as string | undefined;
  if (isJsonObject(node.properties)) return 'object';
  return undefined;
}
