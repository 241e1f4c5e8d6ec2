/**
 * docs/clients.md "A call over a rate limit": what the official SDKs (1.x and 2.x, legacy and 2026-07-28) do with
 * the gateway's HTTP 429 and -32023, and that the same client's next call succeeds once the window has passed.
 */
import { strict as assert } from 'node:assert';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningGateway } from '../../src/gateway';
import { startBackend, type TestBackend } from '../helpers/backend';
import { botConfig, tool } from '../helpers/config';
import { startSilentGateway } from '../helpers/in-process-gateway';
import { BOT } from '../helpers/tokens';

const auth = { requestInit: { headers: { authorization: `Bearer ${BOT.token}` } } };

/** Waits until a new second starts with at least 500 ms of it left (one call per second is the limit). */
async function startOfSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
}

interface AnyClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

async function refusalOf(client: AnyClient): Promise<Error & { code?: unknown; data?: { status?: number } }> {
  await startOfSecond();
  await client.callTool({ name: 'lookup', arguments: {} });
  try {
    await client.callTool({ name: 'lookup', arguments: {} });
  } catch (err) {
    return err as Error;
  }
  assert.fail('the second call in one second was not refused');
}

describe('docs/clients.md: a call over a rate limit, as the official SDKs see it', function () {
  this.timeout(30_000);
  let backend: TestBackend;
  let gateway: RunningGateway;

  before(async () => {
    backend = await startBackend();
    gateway = await startSilentGateway(
      botConfig([tool('lookup', `${backend.url}/lookup`)], { rate_limits: [{ calls: 1, per: 'second' }] }),
    );
  });
  after(async () => {
    await gateway?.close();
    await backend?.close();
  });

  it('1.x throws StreamableHTTPError 429 carrying the JSON-RPC error; the next window the same client calls again', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(gateway.url), auth));
    const err = await refusalOf(client);
    assert.equal(err.constructor.name, 'StreamableHTTPError');
    assert.equal(err.code, 429);
    assert.match(
      err.message,
      /"code":-32023,"message":"Rate limit reached: 1 call per second","data":\{"retryAfterMs":\d+,"limit":1,"remaining":0\}/,
    );
    await startOfSecond();
    await client.callTool({ name: 'lookup', arguments: {} });
    await client.close();
  });

  for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
    it(`2.x (${typeof mode === 'string' ? mode : mode.pin}) throws SdkHttpError with status 429 carrying the JSON-RPC error`, async () => {
      const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
      const client = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), auth));
      const err = await refusalOf(client as unknown as AnyClient);
      assert.equal(err.constructor.name, 'SdkHttpError');
      assert.equal(err.data?.status, 429);
      assert.match(err.message, /"code":-32023,"message":"Rate limit reached: 1 call per second"/);
      await startOfSecond();
      await client.callTool({ name: 'lookup', arguments: {} });
      await client.close();
    });
  }
});
