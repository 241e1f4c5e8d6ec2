import {
  Alias,
  Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  Node,
  Pair,
  parseDocument,
  visit,
  YAMLMap,
} from 'yaml';
import { readYamlDocument } from '../src/config';
import { ManifestError, ManifestLocation } from './manifest-document';

/** A mistake found in a manifest: where (a path of keys and indices from the root) and why. */
export interface ManifestProblem {
  /** Keys and list indices from the root, e.g. `['services', 'get_customer', 'timeout_ms']`. */
  readonly at: readonly string[];
  /** One sentence, no position and no path. */
  readonly reason: string;
  /** Report at the key itself rather than at its value (an unknown or repeated key). */
  readonly atKey?: boolean;
  /** The path named in the message when it is not `at` (a repeated key names the map it is in). */
  readonly named?: readonly string[];
  /** For an unknown key near a known one: that key, which the other checks read it as when its map lacks it. */
  readonly near?: string;
  /** Where it is written, when `at` cannot tell: a path through a repeated key reaches the last repeat only. */
  readonly position?: { readonly line: number; readonly column: number };
}

/**
 * A manifest's YAML: the parsed document, the position of each node, and the error text for a list of
 * problems (`FILE:LINE:COL: PATH: REASON`, one a line, in file order).
 */
export class ManifestYaml {
  /** The document as plain data (what the schema checks). */
  public readonly value: unknown;
  private readonly lines = new LineCounter();
  private readonly doc: Document;
  /** Every camelCase word of the text: names of the user's, which messages keep as written. */
  private readonly written: ReadonlySet<string>;

  public constructor(
    private readonly file: string,
    text: string,
  ) {
    // a word starts at the first letter of its run (not after a letter and digits): each run is tried once, so a
    // long lowercase text costs its length, not its square
    this.written = new Set(text.match(/(?<![a-z][0-9]*)[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+/g));
    // duplicate keys are found below, where the map they are in can be named
    // the first syntax error only: the ones after it are usually its echoes
    const { doc, problem } = readYamlDocument(
      () => parseDocument(text, { lineCounter: this.lines, uniqueKeys: false, prettyErrors: true }),
      text,
      this.lines,
    );
    if (problem !== undefined) {
      throw new ManifestError(
        `${file}:${problem.line}:${problem.column}: ${problem.message}`,
        file,
        problem.line,
        problem.column,
      );
    }
    this.doc = doc;
    try {
      this.value = this.doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // an alias before its anchor, or aliases expanding past the bound: said at the alias that fails
      const { line, col } = this.lines.linePos(failingAlias(this.doc)?.range?.[0] ?? 0);
      throw new ManifestError(`${file}:${line}:${col}: ${(err as Error).message}`, file, line, col);
    }
  }

  /** Merge keys (`<<`), anywhere: each at its key, before what the schema would say of the map it merges. */
  public mergeKeys(): ManifestProblem[] {
    const problems: ManifestProblem[] = [];
    this.eachMap((map, at) => {
      for (const pair of map.items) {
        const key = keyOf(pair);
        if (key === '<<') problems.push({ at: [...at, key], reason: MERGE_KEY, atKey: true });
      }
    });
    return problems;
  }

  /** Keys written twice in one map: each repeat, at the repeat, naming the map it is in and the first one's place. */
  public duplicateKeys(): ManifestProblem[] {
    const problems: ManifestProblem[] = [];
    this.eachMap((map, at) => {
      const seen = new Map<string, Node>();
      for (const pair of map.items) {
        const key = keyOf(pair);
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, pair.key as Node);
          continue;
        }
        const kind = entryKind(at);
        const { line, column } = this.place(first, undefined, true);
        const fix = kind === 'key' ? 'keep one' : 'rename or remove one';
        const reason = `duplicate ${kind} '${key}' (the first is at line ${line}, column ${column}): ${fix}`;
        const position = this.place(pair.key as Node, undefined, true);
        problems.push({ at: [...at, key], reason, atKey: true, named: at, position });
      }
    });
    return problems;
  }

  /**
   * Keys YAML reads as another name than written: `1e3:` is the number 1000, `0x10:` 16, `~:` null (the empty
   * name), so the entry would be known by a name the user never wrote.
   */
  public changedKeys(): ManifestProblem[] {
    const problems: ManifestProblem[] = [];
    this.eachMap((map, at) => {
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key) || typeof key.value === 'string' || key.source === undefined) continue;
        const read = key.value === null ? '' : String(key.value);
        if (read === key.source) continue;
        const as = key.value === null ? 'null (no name)' : `the ${typeof key.value} ${read}`;
        const reason = `YAML reads the key ${key.source} as ${as}: put it in quotes ("${key.source}")`;
        problems.push({ at: [...at, keyOf(pair)], reason, atKey: true, named: at });
      }
    });
    return problems;
  }

  /** Calls `visit` with every map of the document and where it is, parents first. */
  private eachMap(visit: (map: YAMLMap, at: readonly string[]) => void): void {
    const walk = (node: unknown, at: string[]): void => {
      if (isMap(node)) {
        visit(node, at);
        for (const pair of node.items) walk(pair.value, [...at, keyOf(pair)]);
      } else if (isSeq(node)) node.items.forEach((item, i) => walk(item, [...at, String(i)]));
    };
    walk(this.doc.contents, []);
  }

  /** The node at `at`, or the deepest one on the way to it, and the key it is under. */
  private nodeAt(at: readonly string[]): { node: unknown; key: Node | undefined } {
    let node: unknown = this.doc.contents;
    let key: Node | undefined;
    for (const segment of at) {
      if (isMap(node)) {
        // the last of repeated keys, as in the plain data
        const pair = lastPair(node, segment);
        if (pair === undefined) break;
        key = pair.key as Node;
        node = pair.value;
      } else if (isSeq(node) && /^\d+$/.test(segment) && Number(segment) < node.items.length) {
        key = undefined;
        node = node.items[Number(segment)];
      } else break;
    }
    return { node, key };
  }

  /**
   * `['services', 'a', 'tokens', '0']` → `services.a.tokens[0]`: how manifest errors name a place. A number is an
   * index in a list, and a key like any other in a map (a service named `2024`: `services.2024`).
   */
  private pathOf(at: readonly string[]): string {
    let node: unknown = this.doc.contents;
    let path = '';
    for (const segment of at) {
      if (isAlias(node)) node = node.resolve(this.doc);
      const index = isSeq(node) || (node === undefined && /^\d+$/.test(segment));
      path = index ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`;
      if (isMap(node)) node = lastPair(node, segment)?.value;
      else if (isSeq(node)) node = node.items[Number(segment)];
      else node = undefined;
    }
    return path;
  }

  /** Where the node at `at` is written (its key when `atKey`, or when it has no value of its own). */
  public location(at: readonly string[], atKey = false): ManifestLocation {
    const { node, key } = this.nodeAt(at);
    return { ...this.place(key, node, atKey), path: this.pathOf(at) };
  }

  /** Where a value is written, or its key (`atKey`, or when the value is empty and there is a key). */
  private place(key: Node | undefined, node: unknown, atKey = false): { line: number; column: number } {
    const value = node as Node | null;
    // `key:` with nothing after it: an empty null scalar; report it at the key, where the reader looks
    const empty = value === null || (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1]);
    const offset = (atKey || empty) && key !== undefined ? key.range?.[0] : value?.range?.[0];
    const pos = this.lines.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  }

  /** Where the entry at `at` is written (its key), and where each key under it is (their values). */
  public entry(at: readonly string[]): ManifestLocation {
    const keys = new Map<string, { line: number; column: number }>();
    const walk = (node: unknown, path: string): void => {
      if (isMap(node)) {
        for (const pair of node.items) {
          const key = path === '' ? keyOf(pair) : `${path}.${keyOf(pair)}`;
          // the last of repeated keys, as in the plain data (a repeat is refused before any entry is read)
          keys.set(key, this.place(pair.key as Node, pair.value));
          walk(pair.value, key);
        }
      } else if (isSeq(node)) {
        node.items.forEach((item, i) => {
          const key = `${path}[${i}]`;
          keys.set(key, this.place(undefined, item));
          walk(item, key);
        });
      }
    };
    walk(this.nodeAt(at).node, '');
    return { ...this.location(at, true), keys, written: this.written };
  }

  /** The `ManifestError` for `problems` (at least one), in file order. */
  public error(problems: readonly ManifestProblem[]): ManifestError {
    const located = problems.map((p) => {
      const { line, column } = p.position ?? this.location(p.at, p.atKey);
      const path = this.pathOf(p.named ?? p.at);
      return { line, column, text: `${this.file}:${line}:${column}: ${path === '' ? '' : `${path}: `}${p.reason}` };
    });
    located.sort((a, b) => a.line - b.line || a.column - b.column);
    const seen = new Set<string>();
    const unique = located.filter((p) => !seen.has(p.text) && seen.add(p.text));
    return new ManifestError(unique.map((p) => p.text).join('\n'), this.file, unique[0].line, unique[0].column);
  }
}

/** YAML 1.1's merge key, which the YAML 1.2 the manifest is read as does not have. */
const MERGE_KEY =
  'merge keys (`<<: *anchor`) are not read: write the keys out, or make the whole value an alias ' +
  '(`input: *shared_input`), its anchor under a top-level `x-` key';

/** Each map's pairs by key, the last of repeated keys winning: a lookup per problem must not walk the whole map. */
const pairsByKey = new WeakMap<YAMLMap, Map<string, Pair>>();

function lastPair(map: YAMLMap, key: string): Pair | undefined {
  let pairs = pairsByKey.get(map);
  if (pairs === undefined) {
    pairs = new Map(map.items.map((pair) => [keyOf(pair), pair]));
    pairsByKey.set(map, pairs);
  }
  return pairs.get(key);
}

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

/** What the entries of the map at `at` are, for a duplicate key's message. */
function entryKind(at: readonly string[]): string {
  if (at.length === 1 && at[0] === 'services') return 'service';
  if (at.length === 1 && at[0] === 'gateways') return 'gateway';
  if (at.length === 1 && at[0] === 'dashboards') return 'dashboard';
  if (at.length === 1 && at[0] === 'limit_stores') return 'limit store';
  const last = at[at.length - 1];
  if (at[0] === 'services' && (last === 'input' || last === 'properties')) return 'parameter';
  if (last === 'headers') return 'header';
  return 'key';
}

/** The first alias that names no anchor before it, else the first alias (the document's aliases expand too far). */
function failingAlias(doc: Document): Alias | undefined {
  let first: Alias | undefined;
  let unresolved: Alias | undefined;
  visit(doc, {
    Alias(_, alias) {
      first ??= alias;
      if (alias.resolve(doc) === undefined) {
        unresolved = alias;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return unresolved ?? first;
}
