/**
 * What a store audit sink does with records the store has not taken when it is closed: hands them to the sink that
 * replaces it (a reload), says they are lost when the audit is turned off, and never asks a store that refuses them
 * again in a loop. A shutdown during a hand-over waits for it. The store is a stand-in that is down, slow or refusing.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { noAudit, openAuditLog, type AuditRecord } from '../../../src/gateway/audit/audit-log';
import { silentLogger } from '../../../src/gateway/log/logger';
import { ReplaceableAudit } from '../../../src/gateway/audit/replaceable-audit';
import { StoreAuditLog } from '../../../src/gateway/audit/store-audit';
import { StoreUnavailableError, type SharedStore } from '../../../src/gateway/store/shared-store';
import { tempDir } from '../../helpers/temp-dir';

function record(tool: string): AuditRecord {
  const client = { name: null, version: null };
  return {
    ts: new Date().toISOString(),
    gateway: 'g',
    session: null,
    principal: 'bot',
    auth: 'token',
    client,
    tool,
    outcome: 'ok',
    error: null,
    duration_ms: 1,
  };
}

/** A store that is down, answers each append after `ms`, or refuses every append with an error of its own. */
function fakeStore(mode: 'down' | 'slow' | 'refusing', ms = 0): SharedStore & { appends: number; taken: number } {
  const store = {
    appends: 0,
    taken: 0,
    available: mode !== 'down',
    onRecovery: () => undefined,
    appendAudit(_replica: string, _node: string, entries: readonly string[]): Promise<[number, string]> {
      store.appends++;
      if (mode === 'down') return Promise.reject(new StoreUnavailableError('down'));
      if (mode === 'refusing') return Promise.reject(new Error('OOM command not allowed when used memory > maxmemory'));
      return new Promise((resolve) =>
        setTimeout(() => {
          store.taken += entries.length / 2;
          resolve([entries.length / 2, 'x']);
        }, ms),
      );
    },
  };
  return store as unknown as SharedStore & { appends: number; taken: number };
}

function tools(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as AuditRecord).tool);
}

describe('a store audit sink closed with records the store has not taken', () => {
  let lines: string[];
  const log = (level: string, msg: string): void => void lines.push(`${level} ${msg}`);
  beforeEach(() => {
    lines = [];
  });

  /** A sink on `store` holding `count` records, inside the gateway's replaceable audit. */
  async function holding(store: SharedStore, count: number): Promise<{ sink: StoreAuditLog; audit: ReplaceableAudit }> {
    const sink = new StoreAuditLog(log);
    sink.useStore(store);
    const audit = new ReplaceableAudit(sink);
    for (let i = 0; i < count; i++) audit.write(record(`old${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { sink, audit };
  }

  it('says the records are lost when a reload turns the audit off, rather than that they moved', async () => {
    const { audit } = await holding(fakeStore('down'), 10);
    await audit.replace(noAudit);
    await audit.close();
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('warn audit records wait')),
      ['error audit records not written: the store did not take them before the audit was turned off'],
    );
  });

  it('hands them to a file, and a shutdown during the hand-over waits for it', async () => {
    const file = path.join(tempDir('audit-handover-'), 'audit.jsonl');
    const store = fakeStore('slow', 300);
    const { audit } = await holding(store, 450);
    void audit.replace(openAuditLog(file, silentLogger));
    audit.write(record('new'));
    await audit.close();
    const written = tools(file);
    assert.equal(store.taken + written.filter((t) => t.startsWith('old')).length, 450);
    assert.ok(written.includes('new'));
  });

  it('asks a store that answers but refuses the records once, not in a loop, then hands them over', async () => {
    const file = path.join(tempDir('audit-handover-'), 'audit.jsonl');
    const store = fakeStore('refusing');
    const { audit } = await holding(store, 5);
    const before = store.appends;
    await audit.replace(openAuditLog(file, silentLogger));
    await audit.close();
    assert.ok(store.appends - before <= 1, `${store.appends - before} appends while closing`);
    assert.deepEqual(tools(file), ['old0', 'old1', 'old2', 'old3', 'old4']);
  });
});
