import assert from 'node:assert/strict';
import { cursorParam, ToolPages } from '../../../src/gateway/tools/tool-pages';

const tools = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}` }));
const pagesOf = (list: readonly { name: string }[], size: number, salt = 'gw') =>
  new ToolPages(list, size, salt, (page, nextCursor) => JSON.stringify({ names: page.map((t) => t.name), nextCursor }));
const read = (text: string | undefined): { names: string[]; nextCursor?: string } => JSON.parse(text!);

describe('ToolPages', () => {
  it('walks every tool once, in order, and ends without a cursor', () => {
    const pages = pagesOf(tools(25), 10);
    const seen: string[] = [];
    let page = read(pages.page(undefined));
    for (let i = 0; i < 10 && page.nextCursor !== undefined; i++) {
      seen.push(...page.names);
      page = read(pages.page(page.nextCursor));
    }
    seen.push(...page.names);
    assert.deepEqual(
      seen,
      tools(25).map((t) => t.name),
    );
    assert.equal(page.nextCursor, undefined);
  });

  it('answers a list that fits one page without a cursor', () => {
    assert.deepEqual(read(pagesOf(tools(3), 10).page(undefined)), { names: ['t0', 't1', 't2'] });
  });

  it('issues the same cursors for the same list (replicas with one config agree)', () => {
    const a = read(pagesOf(tools(25), 10).page(undefined)).nextCursor!;
    const b = read(pagesOf(tools(25), 10).page(undefined)).nextCursor!;
    assert.equal(a, b);
    assert.deepEqual(read(pagesOf(tools(25), 10).page(a)).names[0], 't10');
  });

  it('refuses a cursor of another tool set, another gateway or another scope set', () => {
    const cursor = read(pagesOf(tools(25), 10).page(undefined)).nextCursor!;
    assert.equal(pagesOf(tools(25, 'u'), 10).page(cursor), undefined, 'other tools');
    assert.equal(pagesOf(tools(26), 10).page(cursor), undefined, 'a tool added');
    assert.equal(pagesOf([...tools(25)].reverse(), 10).page(cursor), undefined, 'reordered');
    assert.equal(pagesOf(tools(25), 10, 'other-gateway').page(cursor), undefined, 'other gateway');
    assert.equal(pagesOf(tools(25).slice(0, 20), 10).page(cursor), undefined, 'a narrower scope set');
  });

  it('refuses forged, edited and malformed cursors', () => {
    const pages = pagesOf(tools(25), 10);
    const cursor = read(pages.page(undefined)).nextCursor!;
    const [offset, tag] = cursor.split('.');
    assert.equal(offset, 'a');
    for (const forged of [
      `b.${tag}`, // another offset with the tag of the first
      `0a.${tag}`, // the same offset written differently
      `0.${tag}`,
      `${offset}.${tag.slice(0, -1)}${tag.endsWith('A') ? 'B' : 'A'}`,
      `${offset}.${tag}x`,
      `${offset}`,
      '',
      '10',
      'a.' + 'A'.repeat(22),
      `zzzzzzzz.${tag}`,
      `${cursor}\n`,
      'x'.repeat(100_000),
    ]) {
      assert.equal(pages.page(forged), undefined, JSON.stringify(forged.slice(0, 40)));
    }
    assert.equal(read(pages.page(cursor)).names[0], 't10');
  });

  it('reads the cursor param: absent, a string, or anything else', () => {
    assert.equal(cursorParam(undefined), undefined);
    assert.equal(cursorParam({}), undefined);
    assert.equal(cursorParam({ cursor: '' }), '');
    assert.equal(cursorParam({ cursor: 'a.b' }), 'a.b');
    assert.equal(cursorParam({ cursor: 10 }), null);
    assert.equal(cursorParam({ cursor: null }), null);
    assert.equal(cursorParam(Object.create({ cursor: 'inherited' }) as Record<string, unknown>), undefined);
  });
});
