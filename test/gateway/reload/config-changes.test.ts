/**
 * What a reload changes, by name: each setting whose value differs, the tools added, removed and changed (and
 * only a bounded number of names in the log line); never a value.
 */
import * as assert from 'node:assert/strict';
import type { GatewayConfig, ToolConfig } from '../../../src/config';
import {
  changeLogFields,
  configChangeSteps,
  isUnchanged,
  MAX_NAMED_TOOLS,
} from '../../../src/gateway/reload/config-changes';
import { runAtOnce } from '../../../src/gateway/reload/event-loop-slices';
import { gatewayConfig, tool } from '../../helpers/config';

const tools = (...names: string[]): ToolConfig[] => names.map((name) => tool(name, `http://127.0.0.1:9/${name}`));
const changesOf = (current: GatewayConfig, next: GatewayConfig) => runAtOnce(configChangeSteps(current, next));

describe('config changes', () => {
  const base = gatewayConfig({ tokens: 'none', tools: tools('a', 'b', 'c') });

  it('finds nothing between a config and its copy', () => {
    const changes = changesOf(base, structuredClone(base));
    assert.deepEqual(changes, {
      settings: [],
      toolsAdded: [],
      toolsRemoved: [],
      toolsChanged: [],
      toolsReordered: false,
    });
    assert.deepEqual(changeLogFields(changes), { unchanged: true });
    assert.equal(isUnchanged(changes), true);
    // the same entry written with its keys in another order (YAML edited by hand) is the same tool
    const [a, ...rest] = base.tools;
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as unknown as ToolConfig;
    assert.deepEqual(changeLogFields(changesOf(base, { ...base, tools: [reordered, ...rest] })), { unchanged: true });
  });

  it('names each changed setting (added, removed, nested), never its value', () => {
    const next: GatewayConfig = {
      ...base,
      gateway: { ...base.gateway, validate_input: !(base.gateway.validate_input ?? true), max_body_bytes: 4096 },
    };
    assert.deepEqual(changesOf(base, next).settings, ['validate_input', 'max_body_bytes']);
    assert.deepEqual(changesOf(next, base).settings, ['validate_input', 'max_body_bytes']);
    assert.equal(isUnchanged(changesOf(base, next)), false);
    const hosts = (allowed: string[]): GatewayConfig => ({
      ...base,
      gateway: { ...base.gateway, allowed_hosts: allowed },
    });
    assert.deepEqual(changesOf(hosts(['a.example']), hosts(['b.example'])).settings, ['allowed_hosts']);
    const fields = changeLogFields(changesOf(base, next));
    assert.deepEqual(fields, { settings_changed: ['gateway.validate_input', 'gateway.max_body_bytes'] });
  });

  it('tells tools added, removed and changed apart by name, a deep change included', () => {
    const [a, b] = base.tools;
    const deeper: ToolConfig = { ...b, backend: { ...b.backend, timeout_ms: 1234 } };
    const next: GatewayConfig = { ...base, tools: [a, deeper, ...tools('d')] };
    const changes = changesOf(base, next);
    assert.deepEqual([changes.toolsAdded, changes.toolsRemoved, changes.toolsChanged], [['d'], ['c'], ['b']]);
    assert.equal(changes.toolsReordered, false);
    assert.deepEqual(changeLogFields(changes), { tools_added: ['d'], tools_removed: ['c'], tools_changed: ['b'] });
  });

  it('says the same tools in another order were reordered', () => {
    const [a, b, c] = base.tools;
    assert.deepEqual(changeLogFields(changesOf(base, { ...base, tools: [c, a, b] })), { tools_reordered: true });
    assert.equal(isUnchanged(changesOf(base, { ...base, tools: [c, a, b] })), false);
    // the order of the tools both configs hold, whatever was added or removed around them
    const [d] = tools('d');
    assert.equal(changesOf(base, { ...base, tools: [d, b, a] }).toolsReordered, true);
    assert.equal(changesOf(base, { ...base, tools: [a, d, c] }).toolsReordered, false);
  });

  it(`names at most ${MAX_NAMED_TOOLS} tools per list and counts the rest`, () => {
    const many = Array.from({ length: MAX_NAMED_TOOLS + 5 }, (_, i) => `t${i}`);
    const fields = changeLogFields(changesOf(base, { ...base, tools: [...base.tools, ...tools(...many)] }));
    assert.deepEqual(fields.tools_added, many.slice(0, MAX_NAMED_TOOLS));
    assert.equal(fields.tools_added_more, 5);
  });

  it('compares one tool per step (a reload runs it in slices)', () => {
    const steps = configChangeSteps(base, base);
    let yielded = 0;
    while (steps.next().done !== true) yielded++;
    assert.equal(yielded, base.tools.length);
  });
});
