/**
 * The props tables of the docs against the construct types, read with the TypeScript compiler: in
 * docs/constructs.md each construct's table lists every prop of its `XxxProps` and nothing else, says `required`
 * exactly for the props that are not optional, and each dotted row (`auth.oauth`) names a property of that prop's
 * type; the README's shorter tables name only props that exist, required ones marked so. A prop added, renamed or
 * removed in a construct without its row fails here.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const CONSTRUCTS: Readonly<Record<string, { file: string; props: string }>> = {
  Service: { file: 'constructs/service.ts', props: 'ServiceProps' },
  Gateway: { file: 'constructs/gateway.ts', props: 'GatewayProps' },
  AuditDashboard: { file: 'constructs/audit-dashboard.ts', props: 'AuditDashboardProps' },
  LimitStore: { file: 'constructs/limit-store.ts', props: 'LimitStoreProps' },
};

interface PropsRow {
  readonly prop: string;
  readonly defaultText: string;
}

/** The `| prop | type | default | … |` table under each `## \`Name\`` (or `###`) heading of a markdown file. */
function propsTables(file: string): Map<string, PropsRow[]> {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const tables = new Map<string, PropsRow[]>();
  let heading: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const h = /^#{2,3} `(\w+)`/.exec(lines[i]);
    if (h !== null) heading = h[1];
    if (heading === undefined || !/^\| prop \| type \| default \|/.test(lines[i])) continue;
    const rows: PropsRow[] = [];
    for (let j = i + 2; j < lines.length && lines[j].startsWith('|'); j++) {
      const cells = lines[j].split(/(?<!\\)\|/).map((c) => c.trim());
      const prop = /^`([\w.]+)`$/.exec(cells[1]);
      assert.ok(prop, `${file}:${j + 1}: the first cell of a props row is one \`prop\`: ${lines[j]}`);
      rows.push({ prop: prop[1], defaultText: cells[3] });
    }
    assert.ok(!tables.has(heading), `${file}: two props tables under ${heading}`);
    tables.set(heading, rows);
  }
  return tables;
}

const program = ts.createProgram(
  Object.values(CONSTRUCTS).map((c) => path.join(ROOT, c.file)),
  { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022 },
);
const checker = program.getTypeChecker();

/** The declared props interface of a construct. */
function propsType(construct: string): ts.Type {
  const { file, props } = CONSTRUCTS[construct];
  const source = program.getSourceFile(path.join(ROOT, file))!;
  const declaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === props,
  );
  assert.ok(declaration, `${file} declares ${props}`);
  return checker.getTypeAtLocation(declaration);
}

/** The property `name` of a type, looked up in each object member of a union (`{ tokens } | 'none'`). */
function propertyOf(type: ts.Type, name: string): ts.Symbol | undefined {
  const members = type.isUnion() ? type.types : [type];
  for (const member of members) {
    const found = checker.getPropertyOfType(member, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function typeOfProperty(symbol: ts.Symbol): ts.Type {
  return checker.getNonNullableType(checker.getTypeOfSymbol(symbol));
}

function isOptional(symbol: ts.Symbol): boolean {
  return (symbol.flags & ts.SymbolFlags.Optional) !== 0;
}

/** Checks every row of one table; with `complete`, also that every prop has its row. */
function checkTable(file: string, construct: string, rows: readonly PropsRow[], complete: boolean): void {
  const type = propsType(construct);
  const props = checker.getPropertiesOfType(type);
  for (const row of rows) {
    const [head, ...rest] = row.prop.split('.');
    let symbol = propertyOf(type, head);
    assert.ok(symbol, `${file}: ${construct} row \`${row.prop}\`: ${CONSTRUCTS[construct].props} has no ${head}`);
    if (rest.length === 0) {
      assert.equal(
        row.defaultText === 'required',
        !isOptional(symbol),
        `${file}: ${construct} row \`${row.prop}\` says default ${row.defaultText}, but the prop is ${isOptional(symbol) ? 'optional' : 'required'}`,
      );
    }
    for (const part of rest) {
      symbol = propertyOf(typeOfProperty(symbol), part);
      assert.ok(symbol, `${file}: ${construct} row \`${row.prop}\`: the type of its parent has no ${part}`);
    }
  }
  if (!complete) return;
  const documented = new Set(rows.map((r) => r.prop));
  const missing = props.map((p) => p.name).filter((name) => !documented.has(name));
  assert.deepEqual(missing, [], `${file}: the ${construct} table lacks rows for these props`);
}

describe('the props tables of the docs', function () {
  this.timeout(60_000);

  it('docs/constructs.md has one complete table per construct, true to its props type', () => {
    const tables = propsTables('docs/constructs.md');
    assert.deepEqual([...tables.keys()].sort(), Object.keys(CONSTRUCTS).sort());
    for (const [construct, rows] of tables) checkTable('docs/constructs.md', construct, rows, true);
  });

  it("the README's tables name only props that exist, required ones as required", () => {
    const tables = propsTables('README.md');
    assert.deepEqual([...tables.keys()].sort(), ['Gateway', 'Service']);
    for (const [construct, rows] of tables) checkTable('README.md', construct, rows, false);
  });

  it('finds a stale row: a prop the type does not have fails with its name', () => {
    assert.throws(
      () => checkTable('x.md', 'Gateway', [{ prop: 'tokenHashes', defaultText: 'none' }], false),
      /x\.md: Gateway row `tokenHashes`: GatewayProps has no tokenHashes/,
    );
    assert.throws(
      () => checkTable('x.md', 'Gateway', [{ prop: 'auth', defaultText: 'none' }], false),
      /x\.md: Gateway row `auth` says default none, but the prop is required/,
    );
    assert.throws(() => checkTable('x.md', 'AuditDashboard', [], true), /lacks rows for these props/);
  });
});
