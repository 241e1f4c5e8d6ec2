import assert from 'node:assert/strict';
import type { AuditRecord } from '../../../src/gateway';
import type { ServiceClient } from '../../../src/gateway/upstream/service-client';
import { buildGatewayState } from '../../../src/gateway/gateway-state';
import { callTool, type Caller, type CallServices } from '../../../src/gateway/tools/call-pipeline';
import { silentLogger } from '../../../src/gateway';
import { config, tool } from './support';

describe('callTool on an unexpected fault', () => {
  const state = buildGatewayState(
    config([tool('http://127.0.0.1:9', 'get_customer', '/customers/{customer_id}', { type: 'object', properties: { customer_id: { type: 'string' } }, required: ['customer_id'] })]),
    '127.0.0.1',
    silentLogger,
  );
  const session: Caller = {
    sessionId: 's-1', principal: 'bot', protocolVersion: '2025-06-18', client: { name: 'c', version: '1' },
  };

  function services(call: () => never, records: AuditRecord[], logs: unknown[][]): CallServices {
    return {
      services: { call } as unknown as ServiceClient,
      audit: { write: (r) => records.push(r), close: async () => undefined },
      concurrency: { active: 0 },
      log: (...args) => logs.push(args),
    };
  }

  it('answers -32603 "Internal error", audits the call as error and logs the kind of fault without its text', async () => {
    const records: AuditRecord[] = [];
    const logs: unknown[][] = [];
    const ctx = services(() => {
      throw new URIError('URI malformed: C-secret');
    }, records, logs);
    const reply = await callTool(state, session, { name: 'get_customer', arguments: { customer_id: 'C-secret' } }, ctx);
    assert.deepEqual(reply, { error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(records.map((r) => [r.tool, r.outcome, r.error]), [['get_customer', 'error', { code: 'INTERNAL_ERROR', message: 'Internal error' }]]);
    assert.deepEqual(logs, [['error', 'internal error in tools/call', { tool: 'get_customer', error: 'URIError' }]]);
    assert.equal(ctx.concurrency.active, 0, 'the concurrency slot was not given back');
  });

  it('still answers when the audit sink itself throws', async () => {
    const logs: unknown[][] = [];
    const ctx: CallServices = {
      ...services(() => {
        throw new TypeError('boom');
      }, [], logs),
      audit: { write: () => { throw new RangeError('disk'); }, close: async () => undefined },
    };
    const reply = await callTool(state, session, { name: 'get_customer', arguments: { customer_id: 'C-1' } }, ctx);
    assert.deepEqual(reply, { error: { code: -32603, message: 'Internal error' } });
    assert.deepEqual(logs.map((l) => l[1]), ['internal error in tools/call', 'audit record not written']);
  });
});
