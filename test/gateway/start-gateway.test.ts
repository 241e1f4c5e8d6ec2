/**
 * The running gateway in-process (`startGateway`): reload (atomic swap, invalid configs refused) and close()
 * (drain, audit flush).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { GatewayConfig } from '../../src/config';
import type { RunningGateway } from '../../src/gateway';
import { startFakeService, type FakeService } from '../helpers/backend';
import { botConfig, tool } from '../helpers/config';
import { eventually, sleep } from '../helpers/eventually';
import { rawRequest } from '../helpers/http';
import { startInProcessGateway, startSilentGateway } from '../helpers/in-process-gateway';
import { connectClient, initializeSession, rawCall } from '../helpers/mcp';
import { BOT } from '../helpers/tokens';
import { listedTools, reloadVersions } from '../helpers/reload-versions';
import { tempDir } from '../helpers/temp-dir';

describe('reload()', () => {
  let service: FakeService;
  let v1: GatewayConfig;
  let v2: GatewayConfig;

  before(async () => {
    service = await startFakeService();
    ({ v1, v2 } = reloadVersions(service.url));
  });
  after(() => service.close());

  /**
   * An SDK client of `gateway`, once its GET stream (which the SDK opens in the background after connect()) has
   * heard `notifications/tools/list_changed`: reloads v2 and v1 in turn, each a change, until the last reload (to
   * v2) was heard, so no notification is still on its way.
   */
  async function notifiedClient(gateway: RunningGateway) {
    const client = await connectClient(gateway.url);
    let heard = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard++;
    });
    let next = v2;
    try {
      await eventually(async () => {
        const before = heard;
        await gateway.reload(next);
        next = next === v2 ? v1 : v2;
        await sleep(50);
        assert.ok(heard > before && next === v1, 'no notifications/tools/list_changed received');
      });
    } catch (err) {
      await client.close();
      throw err;
    }
    return { client, notifications: () => heard };
  }

  it('swaps the tools, validates with the new schemas and notifies SDK clients', async () => {
    const gateway = await startSilentGateway(v1);
    const { client } = await notifiedClient(gateway);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['lookup', 'health'],
      );
      const session = await initializeSession(gateway.url);
      const res = await rawCall(gateway.url, session, 'lookup', { q: 'text' });
      assert.equal(res.error.message, 'Invalid type for `q`: expected integer');
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('tells no client to list again when the config read is unchanged, and the log says so', async () => {
    const gw = await startInProcessGateway(v1);
    const { client, notifications } = await notifiedClient(gw.gateway);
    const reloaded = () => gw.logs.filter((line) => line.msg === 'config reloaded');
    try {
      const heard = notifications();
      await gw.gateway.reload(structuredClone(v2));
      assert.deepEqual(
        { notified: reloaded().at(-1)!.notified_streams, unchanged: reloaded().at(-1)!.unchanged },
        { notified: 0, unchanged: true },
      );
      // A change after it is heard once: the stream is ordered, so a notification of the unchanged reload would
      // have arrived before it.
      await gw.gateway.reload(v1);
      await eventually(() => assert.equal(notifications(), heard + 1));
      assert.equal(reloaded().at(-1)!.notified_streams, 1);
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('tells clients of a change made to the config object it started with, passed again', async () => {
    // An embedder editing its one config object and reloading it: the running config must not be that object, or
    // the reload compares the edit with itself, finds nothing changed and tells no client of the new tool.
    const config = structuredClone(v1);
    const gw = await startInProcessGateway(config);
    const { client, notifications } = await notifiedClient(gw.gateway);
    try {
      // notifiedClient left v2 running; back to the object, then edit it and pass it again
      const before = notifications();
      await gw.gateway.reload(config);
      await eventually(() => assert.equal(notifications(), before + 1));
      const heard = notifications();
      (config.tools as GatewayConfig['tools'][number][]).push({ ...config.tools[0], name: 'added_in_place' });
      await gw.gateway.reload(config);
      const line = gw.logs.filter((l) => l.msg === 'config reloaded').at(-1)!;
      assert.deepEqual(line.tools_added, ['added_in_place']);
      await eventually(() => assert.equal(notifications(), heard + 1));
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'added_in_place'));
    } finally {
      await client.close();
      await gw.close();
    }
  });

  it('refuses an invalid config and keeps the running one', async () => {
    const gateway = await startSilentGateway(v1);
    try {
      const broken = { ...v1, gateway: { ...v1.gateway, port: -1 } } as GatewayConfig;
      await assert.rejects(gateway.reload(broken), {
        name: 'ConfigError',
        message: 'gateway.port: must be an integer 1-65535',
      });
      const session = await initializeSession(gateway.url);
      const res = await rawCall(gateway.url, session, 'lookup', { q: 1 });
      assert.equal(res.error.message, 'Invalid type for `q`: expected string');
    } finally {
      await gateway.close();
    }
  });

  it('reloads from the config file when called without a config', async () => {
    const dir = tempDir('gw-reload-');
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await startSilentGateway(v1, { configPath: file });
    try {
      writeFileSync(file, JSON.stringify(v2));
      await gateway.reload();
      const session = await initializeSession(gateway.url);
      const list = await listedTools(gateway.url, session);
      assert.deepEqual(list, ['lookup', 'health']);
    } finally {
      await gateway.close();
    }
  });
});

describe('reload() from the file, asked many times', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('runs the reloads that wait in the queue once, and each ask resolves', async () => {
    const { v1, v2 } = reloadVersions(service.url);
    const file = join(tempDir('gw-reload-burst-'), 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    let reloaded = 0;
    const gateway = await startSilentGateway(v1, {
      configPath: file,
      logger: (_level, msg) => {
        if (msg === 'config reloaded') reloaded++;
      },
    });
    try {
      writeFileSync(file, JSON.stringify(v2));
      // a burst of SIGHUPs: each a full read and build of the same file, the last waiting behind all the others
      await Promise.all(Array.from({ length: 200 }, () => gateway.reload()));
      assert.equal(reloaded, 1);
      // asked while one runs: the file may have changed after that one read it, so it is read again
      const running = gateway.reload();
      await sleep(0);
      const asked = gateway.reload();
      await Promise.all([running, asked]);
      assert.equal(reloaded, 3);
      // a config handed in between keeps its place: the file is read again after it
      await Promise.all([gateway.reload(), gateway.reload(v1), gateway.reload()]);
      assert.equal(reloaded, 6);
      const session = await initializeSession(gateway.url);
      assert.deepEqual(await listedTools(gateway.url, session), ['lookup', 'health']);
    } finally {
      await gateway.close();
    }
  });
});

describe('the status file', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('still says stopped after a reload that was building when the gateway closed', async () => {
    const small = botConfig([tool('lookup', `${service.url}/health`)]);
    const statusFile = join(tempDir('gw-status-'), 'status.json');
    const gateway = await startSilentGateway(small, { statusFile });
    // thousands of tools: the reload builds over many turns of the event loop, and close() ends before it does
    const large = botConfig(
      Array.from({ length: 3_000 }, (_, i) =>
        tool(`tool_${i}`, `${service.url}/health`, {
          inputSchema: { type: 'object', properties: { [`id_${i}`]: { type: 'string', pattern: `^X${i}$` } } },
        }),
      ),
    );
    const reload = gateway.reload(large).then(
      () => 'applied',
      (err: Error) => err.message,
    );
    await sleep(1); // the reload has started building
    await gateway.close();
    assert.equal(JSON.parse(readFileSync(statusFile, 'utf8')).state, 'stopped');
    assert.equal(await reload, 'the gateway is shutting down');
    const status = JSON.parse(readFileSync(statusFile, 'utf8'));
    assert.equal(status.state, 'stopped', JSON.stringify(status));
  });
});

describe('close()', () => {
  let service: FakeService;
  before(async () => {
    service = await startFakeService();
  });
  after(() => service.close());

  it('finishes in-flight calls, flushes their audit records and refuses new requests', async () => {
    const file = join(tempDir('gw-drain-'), 'audit.jsonl');
    const gateway = await startSilentGateway(
      botConfig([tool('slow', `${service.url}/slow`, { inputSchema: { type: 'object' } })]),
      { auditLogPath: file },
    );
    service.respond = () => ({ delayMs: 200, body: '{"done":true}' });
    const session = await initializeSession(gateway.url);
    const before = service.received.length;
    const calls = [1, 2, 3].map(() => rawCall(gateway.url, session, 'slow', {}));
    // In flight means at the service: a call still on its way to the gateway may meet the closed listener.
    await eventually(() => service.received.length - before === 3, { what: '3 calls at the service' });
    const closed = gateway.close();
    const results = await Promise.all(calls);
    await closed;
    assert.deepEqual(
      results.map((r) => r.result.structuredContent),
      [{ done: true }, { done: true }, { done: true }],
    );
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    assert.equal(lines.length, 3);
    await assert.rejects(
      rawRequest({ url: gateway.url, headers: { authorization: `Bearer ${BOT.token}` }, body: '{}', timeoutMs: 5_000 }),
    );
  });
});
