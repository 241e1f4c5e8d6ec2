/**
 * Secrets under `dev`, over a copy of the tiny fixture app whose tool sends the secret TINY_API_KEY: a missing one
 * stops `dev` before any backend starts, saying to export it or to put it in `.dev/secrets/`; a file there or the
 * environment gives it, and the backend receives it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DevOptions, DevSession, DevUsageError, parseDevArgs, startDevSession } from '../../src/dev';
import { silentLogger } from '../../src/gateway';

const FIXTURE = path.join(__dirname, 'fixtures', 'tiny-app');
const SECRET = 'TINY_API_KEY';

describe('dev and secrets', function () {
  this.timeout(60_000);
  let app: string;
  let session: DevSession | undefined;
  let logged: string[];

  beforeEach(() => {
    app = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dev-secrets-')), 'tiny-app');
    fs.cpSync(FIXTURE, app, { recursive: true, filter: (src) => path.basename(src) !== '.dev' });
    const cdktf = JSON.parse(fs.readFileSync(path.join(app, 'cdktf.json'), 'utf8'));
    fs.writeFileSync(path.join(app, 'cdktf.json'), JSON.stringify({ ...cdktf, context: { secret: SECRET } }));
    logged = [];
  });
  afterEach(async () => {
    await session?.close();
    session = undefined;
    fs.rmSync(path.dirname(app), { recursive: true, force: true });
  });

  const start = (env: NodeJS.ProcessEnv): Promise<DevSession> =>
    startDevSession(parseDevArgs([app, '--port', '0']) as DevOptions, {
      gatewayLogger: silentLogger,
      log: (line) => logged.push(line),
      env,
    });

  async function keyTheBackendGot(s: DevSession): Promise<unknown> {
    const alpha = s.gateways[0];
    const client = new Client({ name: 'dev-secrets-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(alpha.url), {
        requestInit: { headers: { Authorization: `Bearer ${alpha.token!}` } },
      }),
    );
    try {
      return (await client.callTool({ name: 'echo', arguments: { word: 'a' } })).structuredContent;
    } finally {
      await client.close();
    }
  }

  it('stops before any backend starts when a secret is missing, saying how to give it under dev', async () => {
    await assert.rejects(start({}), {
      constructor: DevUsageError,
      message:
        `gateway alpha: tools[0].backend.headers["X-Api-Key"]: secret ${SECRET} is not set: export ${SECRET} in the shell ` +
        `that runs dev, or put it in the file ${path.join(app, '.dev', 'secrets', SECRET)}`,
    });
    assert.deepEqual(
      logged.filter((l) => l.startsWith('Starting backend')),
      [],
      'no backend was started',
    );
  });

  it('reads the secret from .dev/secrets/NAME, without its trailing line break', async () => {
    fs.mkdirSync(path.join(app, '.dev', 'secrets'), { recursive: true });
    fs.writeFileSync(path.join(app, '.dev', 'secrets', SECRET), 'from-file\n');
    session = await start({});
    assert.deepEqual(await keyTheBackendGot(session), { echo: 'a', key: 'from-file' });
  });

  it("reads the secret from dev's environment", async () => {
    session = await start({ [SECRET]: 'from-env' });
    assert.deepEqual(await keyTheBackendGot(session), { echo: 'a', key: 'from-env' });
  });

  it('refuses an empty secret before any backend starts', async () => {
    await assert.rejects(start({ [SECRET]: '' }), {
      constructor: DevUsageError,
      message: `gateway alpha: tools[0].backend.headers["X-Api-Key"]: secret ${SECRET} is empty`,
    });
    assert.equal(logged.filter((l) => l.startsWith('Starting backend')).length, 0);
  });
});
