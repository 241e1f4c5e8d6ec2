import * as fs from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { isStackOverflow, readYamlDocument } from '../config/yaml-errors';
import { isJsonObject } from '../validation';
import { childPointer, isLocalRef } from './json-pointer';
import { MAX_EXPANDED_NODES, refExpansionProblem } from './ref-expansion';
import { validateWithParser } from './validate-with-parser';
import type { OpenApiVersion } from './translate-schema';

/** A parsed, validated OpenAPI document. */
export interface OpenApiDocument {
  /** The file it was read from. */
  readonly file: string;
  readonly version: OpenApiVersion;
  /** The document as written (`$ref`s unresolved: the translation resolves them, keeping recursion as `$defs`). */
  readonly document: Record<string, unknown>;
}

/**
 * Reads an OpenAPI 3.0 or 3.1 document (JSON or YAML) and validates it with `@readme/openapi-parser`.
 * Nothing is fetched: a `$ref` to another file or a URL is refused before the parser sees the document.
 *
 * @throws Error naming the file and what is wrong (not found, not JSON/YAML, Swagger 2.0, another version, an
 * external `$ref` with its JSON pointer, or the parser's first findings)
 */
export function loadOpenApiDocument(file: string): OpenApiDocument {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines = new LineCounter();
  // YAML 1.2 reads JSON too
  const { doc, problem } = readYamlDocument(
    () => parseDocument(text, { prettyErrors: false, lineCounter: lines }),
    text,
    lines,
  );
  if (problem !== undefined) {
    // said as FILE:LINE:COLUMN, as editors take it, in the words the manifest and the gateway config use
    throw new Error(`${file}:${problem.line}:${problem.column}: neither JSON nor YAML: ${problem.message}`);
  }
  let parsed: unknown;
  try {
    // `maxAliasCount` bounds alias expansion (a "billion laughs" document)
    parsed = doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    throw new Error(`${file} is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isJsonObject(parsed)) throw new Error(`${file} is not an OpenAPI document (expected an object at the top)`);
  const version = versionOf(parsed, file);
  const external = readable(file, () => externalRef(parsed, '#'));
  if (external !== undefined) {
    throw new Error(
      `${file}: ${external.pointer}: $ref ${JSON.stringify(external.ref)} points outside the document; only local ` +
        `$refs (#/components/…) are supported and nothing is fetched at synthesis: bundle the document into one file ` +
        '(e.g. `npx @redocly/cli bundle`)',
    );
  }
  // before the parser, which inlines every $ref while it validates
  const bomb = readable(file, () => refExpansionProblem(parsed));
  if (bomb !== undefined) {
    throw new Error(
      `${file}: ${bomb.pointer}: $ref ${JSON.stringify(bomb.ref)} expands to more than ` +
        `${MAX_EXPANDED_NODES.toLocaleString('en-US')} schema nodes once its shared $refs are inlined (definitions ` +
        'reused at every level); simplify the schema, or expose the operation with a hand-written Service',
    );
  }
  const problems = readable(file, () => validateWithParser(parsed));
  if (problems.length > 0) {
    const shown = problems.slice(0, 3).join('; ');
    const more = problems.length > 3 ? ` (+${problems.length - 3} more)` : '';
    throw new Error(`${file} is not a valid OpenAPI ${version} document: ${shown}${more}`);
  }
  return { file, version, document: parsed };
}

/**
 * What `walk` of the document gives, or the refusal of a document nested deeper than it can walk: an alias stands for
 * all its anchor holds, so a few anchors each aliasing the one before nest the data far deeper than its YAML.
 */
function readable<T>(file: string, walk: () => T): T {
  try {
    return walk();
  } catch (err) {
    if (!isStackOverflow(err)) throw err;
    throw new Error(
      `${file}: the document nests hundreds of levels deep, its aliases (*name) expanded, deeper than it can be ` +
        'read: look for an anchor that holds an alias of another, nested again and again',
    );
  }
}

function versionOf(doc: Record<string, unknown>, file: string): OpenApiVersion {
  if (doc.swagger !== undefined) {
    throw new Error(
      `${file} is a Swagger ${String(doc.swagger)} document; only OpenAPI 3.0 and 3.1 are supported: convert it ` +
        'first (e.g. `npx swagger2openapi ' +
        file +
        ' -o openapi.yaml`, or the Swagger Editor\'s "Convert to OpenAPI 3")',
    );
  }
  const declared = typeof doc.openapi === 'string' ? doc.openapi : undefined;
  if (declared?.startsWith('3.0.')) return '3.0';
  if (declared?.startsWith('3.1.')) return '3.1';
  if (doc.openapi === undefined) {
    throw new Error(
      `${file}: no \`openapi\` version field; expected an OpenAPI 3.0.x or 3.1.x document, which starts with a ` +
        'line such as `openapi: 3.0.3`',
    );
  }
  if (typeof doc.openapi === 'number') {
    throw new Error(
      `${file}: openapi is the number ${doc.openapi} (YAML reads an unquoted ${doc.openapi} as a number); expected ` +
        `an OpenAPI 3.0.x or 3.1.x version as text, e.g. \`openapi: "${doc.openapi >= 3.1 ? '3.1.0' : '3.0.3'}"\``,
    );
  }
  throw new Error(
    `${file}: openapi ${JSON.stringify(doc.openapi)} is not supported; expected an OpenAPI 3.0.x or 3.1.x document`,
  );
}

/** The first `$ref` that is not local, depth first in document order, with its pointer. */
function externalRef(node: unknown, pointer: string): { ref: string; pointer: string } | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = externalRef(item, childPointer(pointer, i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isJsonObject(node)) return undefined;
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (key === '$ref' && typeof value === 'string' && !isLocalRef(value)) {
      return { ref: value, pointer: childPointer(pointer, key) };
    }
    // examples and extensions are free-form data, not schemas: a "$ref" inside them is text
    if (key === 'example' || key === 'examples' || key.startsWith('x-')) continue;
    const found = externalRef(value, childPointer(pointer, key));
    if (found !== undefined) return found;
  }
  return undefined;
}
