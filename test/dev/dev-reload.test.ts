/**
 * `dev` applies an edited app to the gateways it serves in place, as `cdktf deploy` does: the same process and
 * port, the client's session kept, the new behaviour from the next call; a gateway whose config the edit leaves as
 * it was is not reloaded.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { isAlive, spawnGroup, Spawned, stopGroup } from './process-helpers';
import { eventually } from '../helpers/eventually';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/src/cli/main.js');
const fixture = path.join(__dirname, 'fixtures/tiny-app');

/** `text` as a regular expression that matches it literally. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A client of one gateway `dev` serves, counting the `notifications/tools/list_changed` it receives. */
function connect(url: string, token: string) {
  const client = new Client({ name: 'dev-reload-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const counted = { client, transport, toolsChanged: 0, connected: client.connect(transport) };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    counted.toolsChanged++;
  });
  return counted;
}

describe('cdktf-mcp-gateway dev: an edited app reloads in place', function () {
  this.timeout(60_000);
  let dev: Spawned | undefined;
  let app = '';

  beforeEach(() => {
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-reload-'));
    for (const f of ['app.js', 'backend.js', 'cdktf.json', 'dev.json'])
      fs.copyFileSync(path.join(fixture, f), path.join(app, f));
  });
  afterEach(async () => {
    await stopGroup(dev);
    dev = undefined;
    fs.rmSync(app, { recursive: true, force: true });
  });

  it('keeps the process, the port and the session, and the next call sees the edited schema', async () => {
    dev = spawnGroup(process.execPath, [cli, 'dev', app, '--port', '0'], { cwd: root });
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    const [alpha, beta] = [...dev.output().matchAll(/^MCP URL: (\S+)\nToken: (\S+)$/gm)].map(([, url, token]) =>
      connect(url, token),
    );
    const client = alpha.client;
    try {
      await Promise.all([alpha.connected, beta.connected]);
      const session = alpha.transport.sessionId;
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'hello' } })).structuredContent, {
        echo: 'hello',
      });
      const source = fs.readFileSync(path.join(app, 'app.js'), 'utf8');
      assert.ok(source.includes('maxLength: 20'));
      const shorter = source.replace('maxLength: 20', 'maxLength: 3');
      fs.writeFileSync(path.join(app, 'app.js'), shorter);
      // both gateways serve the edited tool
      await dev.waitFor(/^Reloaded gateway beta: tools changed: echo$/m, 30_000);
      await assert.rejects(client.callTool({ name: 'echo', arguments: { word: 'hello' } }), {
        message: 'MCP error -32602: Invalid value for `word`: expected at most 3 characters',
      });
      assert.equal(alpha.transport.sessionId, session);
      assert.match(dev.output(), /^Reloaded gateway alpha: tools changed: echo\nReloaded gateway beta: /m);
      await eventually(() => alpha.toolsChanged === 1 && beta.toolsChanged === 1, { what: 'list_changed on both' });

      // an edit of alpha alone reloads alpha alone, and its line says what took
      const before = dev.output().length;
      fs.writeFileSync(
        path.join(app, 'app.js'),
        shorter.replace('validate_input: true,', "validate_input: name !== 'alpha',"),
      );
      await dev.waitFor(/^Gateway beta unchanged$/m, 30_000);
      assert.match(
        dev.output().slice(before),
        /^App changed: synthesizing \.\.\.\n(?:.*\n)*?Reloaded gateway alpha: validate_input true → false\nGateway beta unchanged\n/m,
      );
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'hello' } })).structuredContent, {
        echo: 'hello',
      });
      await eventually(() => alpha.toolsChanged === 2, { what: "alpha's second list_changed" });
      assert.equal(beta.toolsChanged, 1, 'an unchanged gateway tells its clients nothing');

      // a tool added with a backend nothing maps is named, as at the start, and only once
      const withOther = shorter.replace(
        'tools: [tool],',
        "tools: [tool, { ...tool, name: 'other', backend: { url: 'http://other-api:9100/x', method: 'GET' } }],",
      );
      assert.notEqual(withOther, shorter);
      const beforeOther = dev.output().length;
      fs.writeFileSync(path.join(app, 'app.js'), withOther);
      await dev.waitFor(
        /^Reloaded gateway beta: tools added: other\nWarning: no local backend for other-api:9100;/m,
        30_000,
      );
      const warning =
        'Warning: no local backend for other-api:9100; calls to those tools will fail ' +
        '(use --map HOST:PORT=127.0.0.1:PORT or dev.json)';
      assert.match(
        dev.output().slice(beforeOther),
        new RegExp(
          `^Reloaded gateway alpha: validate_input false → true; tools added: other\n${escape(warning)}\n`,
          'm',
        ),
      );
      const beforeSecond = dev.output().length;
      fs.writeFileSync(path.join(app, 'app.js'), withOther.replace("name: 'other'", "name: 'other2'"));
      await dev.waitFor(/^Reloaded gateway beta: tools added: other2; tools removed: other$/m, 30_000);
      assert.doesNotMatch(dev.output().slice(beforeSecond), /Warning: no local backend/);

      // a broken edit changes nothing that serves
      fs.writeFileSync(path.join(app, 'app.js'), 'throw new Error("half-written");\n');
      await dev.waitFor(/^Reload failed, the gateways keep serving what they served: /m, 30_000);
      // with the app's own reason and where it threw, as a start that fails shows it
      await dev.waitFor(/^--- the app's error ---\nError: half-written\n {4}at .*app\.js:1$/m, 30_000);
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'hey' } })).structuredContent, {
        echo: 'hey',
      });
    } finally {
      await Promise.allSettled([alpha.client.close(), beta.client.close()]);
    }
  });

  it('stops a synthesis in flight on Ctrl-C and prints nothing of it after Stopped.', async () => {
    dev = spawnGroup(process.execPath, [cli, 'dev', app, '--port', '0'], { cwd: root });
    await dev.waitFor(/Press Ctrl-C to stop\./, 30_000);
    // an app that takes far longer than the test may: dev must stop it, not wait for it
    const pidFile = path.join(app, '.dev', 'slow-app.pid');
    fs.writeFileSync(
      path.join(app, 'slow.js'),
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 600000);`,
    );
    const slowPid = await eventually(
      () => {
        if (fs.existsSync(pidFile)) return Number(fs.readFileSync(pidFile, 'utf8'));
        fs.writeFileSync(path.join(app, 'cdktf.json'), JSON.stringify({ app: 'node slow.js' }));
        return false;
      },
      { timeoutMs: 20_000, intervalMs: 1000, what: 'dev to start the slow app' },
    );
    const before = dev.output().length;
    process.kill(dev.child.pid!, 'SIGINT');
    assert.equal(await dev.exited, 0);
    assert.equal(isAlive(slowPid), false, 'the app dev was synthesizing is stopped with it');
    const after = dev
      .output()
      .slice(before)
      .split('\n')
      .filter((l) => !l.startsWith('{')); // the gateways' own log lines
    assert.deepEqual(after, ['Stopping ...', 'Stopped.', '']);
  });
});
