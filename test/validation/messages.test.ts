import * as assert from 'node:assert/strict';
import { isJsonObject, messages } from '../../src/validation';

describe('messages', () => {
  it('has the exact documented texts', () => {
    assert.equal(messages.invalidArgumentsObject, 'Invalid arguments: expected an object');
    assert.equal(messages.unknownTool('get_custmer'), 'Unknown tool: `get_custmer`');
    assert.equal(messages.toolUnavailable('create_ticket'), 'Tool unavailable: `create_ticket`');
    assert.equal(
      messages.conflictingParameters('prompt', 'description'),
      'Conflicting parameters: `prompt` and `description`',
    );
  });
  it('cuts a caller-chosen tool name at 64 code points, marking the cut with …', () => {
    assert.equal(messages.unknownTool('t'.repeat(64)), `Unknown tool: \`${'t'.repeat(64)}\``);
    assert.equal(messages.unknownTool('t'.repeat(65)), `Unknown tool: \`${'t'.repeat(64)}…\``);
    assert.equal(messages.unknownTool('😀'.repeat(70)), `Unknown tool: \`${'😀'.repeat(64)}…\``);
  });
  it('escapes control characters, quotes, backslashes and backticks in a tool name', () => {
    assert.equal(messages.unknownTool('a\nb'), 'Unknown tool: `a\\nb`');
    assert.equal(messages.unknownTool('a`b'), 'Unknown tool: `a\\u0060b`');
    assert.equal(messages.unknownTool('a"b\\'), 'Unknown tool: `a\\"b\\\\`');
    assert.equal(messages.unknownTool('\ud800'), 'Unknown tool: `\\ud800`');
  });
  it('writes conflicting names that are not identifiers in the path form', () => {
    assert.equal(
      messages.conflictingParameters('my prompt', 'desc'),
      'Conflicting parameters: `["my prompt"]` and `desc`',
    );
  });
});

describe('isJsonObject', () => {
  it('accepts plain and prototype-less objects', () => {
    assert.equal(isJsonObject({}), true);
    assert.equal(isJsonObject(Object.create(null)), true);
    assert.equal(isJsonObject(JSON.parse('{"a":1}')), true);
  });
  it('refuses null, arrays, scalars and class instances', () => {
    for (const v of [null, undefined, [], 'x', 1, true, new Date(), new Map(), () => 1])
      assert.equal(isJsonObject(v), false);
  });
});
