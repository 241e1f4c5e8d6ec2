import { isJsonObject } from '../validation';
import { childPointer } from './json-pointer';
import { jsonMediaType } from './operation-input';
import { SchemaTranslator } from './translate-schema';

type Json = Record<string, unknown>;

/**
 * The declared output of an operation: the JSON schema of its first 2xx response (in document order; `2XX`
 * counts), translated for output (the document's own meaning: objects stay open unless it closes them, `writeOnly`
 * properties left out), when that schema is an object schema; otherwise none (the tool declares no output), and
 * whether the operation answers an array (its `redact` paths then start with `[]`).
 *
 * @param responses the operation's `responses` object and its pointer
 * @throws OpenApiError for a schema the gateway's validator cannot take (with the pointer)
 */
export function operationOutput(
  translator: SchemaTranslator,
  responses: unknown,
  pointer: string,
): { readonly schema?: Json; readonly answersArray: boolean } {
  const found = firstJsonResponse(translator, responses, pointer);
  if (found === undefined) return { answersArray: false };
  const { schema, root } = found;
  if (!isJsonObject(root) || !(root.type === 'object' || (root.type === undefined && isJsonObject(root.properties)))) {
    return { answersArray: isJsonObject(root) && root.type === 'array' };
  }
  const defs = translator.definitions();
  const out: Json = { ...(schema as Json) };
  if (typeof out.$ref === 'string') {
    // a recursive root: the tool's output schema must say type: 'object' at its top
    Object.assign(out, { type: 'object' });
  }
  if (defs !== undefined) out.$defs = defs;
  return { schema: out, answersArray: false };
}

/** The translated JSON schema of the first 2xx response, and its root with a top-level `$ref` followed. */
function firstJsonResponse(
  translator: SchemaTranslator,
  responses: unknown,
  pointer: string,
): { schema: unknown; root: unknown } | undefined {
  if (!isJsonObject(responses)) return undefined;
  const code = Object.keys(responses).find((c) => /^2(?:\d\d|XX)$/i.test(c));
  if (code === undefined) return undefined;
  const at = childPointer(pointer, code);
  const response = responses[code];
  const { schema: resolved, pointer: responsePointer } = isJsonObject(response)
    ? translator.follow(response, at)
    : { schema: response, pointer: at };
  if (!isJsonObject(resolved)) return undefined;
  const mediaType = jsonMediaType(resolved.content);
  if (mediaType === undefined) return undefined;
  const media = (resolved.content as Json)[mediaType];
  if (!isJsonObject(media) || media.schema === undefined) return undefined;
  const mediaPointer = childPointer(childPointer(responsePointer, 'content'), mediaType);
  const schema = translator.translate(media.schema, childPointer(mediaPointer, 'schema'));
  const root = isJsonObject(schema) && typeof schema.$ref === 'string' ? definitionOf(translator, schema.$ref) : schema;
  return { schema, root };
}

function definitionOf(translator: SchemaTranslator, ref: string): unknown {
  return ref.startsWith('#/$defs/') ? translator.definitions()?.[ref.slice('#/$defs/'.length)] : undefined;
}
