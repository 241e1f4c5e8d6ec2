/**
 * What `dev` keeps in the app's `.dev/` folder between runs (tokens, session keys: mode 0600, git-ignored) and
 * `--fresh`; and a whole `dev` session over a copy of the tiny fixture app restarted on the same port: the same
 * token, and a 2025 client's session that goes on across the restart.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DevOptions, DevSession, DevStateError, openDevState, parseDevArgs, startDevSession } from '../../src/dev';
import { silentLogger } from '../../src/gateway';
import { freePort } from '../helpers/free-port';

const FIXTURE = path.join(__dirname, 'fixtures', 'tiny-app');
const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe('dev state in DIR/.dev', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-state-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes a token once per gateway and gives the same one when opened again', () => {
    const state = path.join(dir, '.dev');
    const first = openDevState(state).token('desk', 'agents');
    assert.match(first, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(openDevState(state).token('desk', 'legacy'), first, 'each gateway has its own');
    assert.equal(openDevState(state).token('desk', 'agents'), first);
    assert.equal(mode(path.join(state, 'tokens.json')), 0o600);
    assert.equal(fs.readFileSync(path.join(state, '.gitignore'), 'utf8').split('\n')[1], '*');
  });

  it('keeps a session key file of mode 0600 with the same key', () => {
    const state = path.join(dir, '.dev');
    const file = openDevState(state).sessionKeyFile('desk', 'agents');
    assert.equal(file, path.join(state, 'session-key-desk-agents'));
    const key = fs.readFileSync(file, 'utf8');
    assert.equal(Buffer.from(key.trim(), 'base64').length, 32);
    fs.chmodSync(file, 0o644);
    assert.equal(openDevState(state).sessionKeyFile('desk', 'agents'), file);
    assert.equal(fs.readFileSync(file, 'utf8'), key);
    assert.equal(mode(file), 0o600, 'made private again');
  });

  it('forgets tokens and session keys with fresh', () => {
    const state = path.join(dir, '.dev');
    const token = openDevState(state).token('desk', 'agents');
    const key = fs.readFileSync(openDevState(state).sessionKeyFile('desk', 'agents'), 'utf8');
    const fresh = openDevState(state, { fresh: true });
    assert.notEqual(fresh.token('desk', 'agents'), token);
    assert.notEqual(fs.readFileSync(fresh.sessionKeyFile('desk', 'agents'), 'utf8'), key);
  });

  it('refuses a tokens.json it did not write, naming the file and the fix', () => {
    const state = path.join(dir, '.dev');
    fs.mkdirSync(state);
    for (const text of ['{', '[]', '{"desk/agents": 42}', '{"desk/agents": "short"}']) {
      fs.writeFileSync(path.join(state, 'tokens.json'), text);
      assert.throws(() => openDevState(state), {
        constructor: DevStateError,
        message: `${path.join(state, 'tokens.json')}: expected the tokens dev wrote ({"STACK/GATEWAY": "43-character token"}); delete it or run dev --fresh`,
      });
    }
  });
});

describe('dev restarted over the same .dev folder', function () {
  this.timeout(60_000);
  let app: string;
  let session: DevSession | undefined;

  beforeEach(() => {
    app = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dev-restart-')), 'tiny-app');
    fs.cpSync(FIXTURE, app, { recursive: true, filter: (src) => path.basename(src) !== '.dev' });
  });
  afterEach(async () => {
    await session?.close();
    session = undefined;
    fs.rmSync(path.dirname(app), { recursive: true, force: true });
  });

  const start = (port: number, ...flags: string[]): Promise<DevSession> =>
    startDevSession(parseDevArgs([app, '--port', `alpha=${port}`, '--port', 'beta=0', ...flags]) as DevOptions, {
      gatewayLogger: silentLogger,
    });

  it('serves the same token and keeps a client session across a restart; --fresh changes the token', async () => {
    const port = await freePort();
    session = await start(port);
    const alpha = session.gateways.find((g) => g.name === 'alpha')!;
    assert.equal(session.stateDir, path.join(app, '.dev'));
    const client = new Client({ name: 'dev-restart-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(alpha.url), {
        requestInit: { headers: { Authorization: `Bearer ${alpha.token!}` } },
      }),
    );
    try {
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'a' } })).structuredContent, {
        echo: 'a',
      });
      await session.close();
      session = await start(port);
      const again = session.gateways.find((g) => g.name === 'alpha')!;
      assert.equal(again.token, alpha.token, 'the kept token');
      // the same client, the same Mcp-Session-Id: the kept session key still knows it
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'b' } })).structuredContent, {
        echo: 'b',
      });
    } finally {
      await client.close();
    }
    await session.close();
    session = await start(port, '--fresh');
    assert.notEqual(session.gateways.find((g) => g.name === 'alpha')!.token, alpha.token);
  });
});
