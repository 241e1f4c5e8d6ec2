/**
 * `dev` applies an edited app to the gateways it serves in place, as `cdktf deploy` does: the same process and
 * port, the client's session kept, the new behaviour from the next call.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnGroup, Spawned, stopGroup } from './process-helpers';

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/src/cli/main.js');
const fixture = path.join(__dirname, 'fixtures/tiny-app');

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
    const [, url, token] = /^MCP URL: (\S+)\nToken: (\S+)$/m.exec(dev.output())!;
    const client = new Client({ name: 'dev-reload-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    try {
      const session = transport.sessionId;
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'hello' } })).structuredContent, {
        echo: 'hello',
      });
      const source = fs.readFileSync(path.join(app, 'app.js'), 'utf8');
      assert.ok(source.includes('maxLength: 20'));
      fs.writeFileSync(path.join(app, 'app.js'), source.replace('maxLength: 20', 'maxLength: 3'));
      await dev.waitFor(/^Reloaded gateway beta: echo$/m, 30_000);
      await assert.rejects(client.callTool({ name: 'echo', arguments: { word: 'hello' } }), {
        message: 'MCP error -32602: Invalid value for `word`: expected at most 3 characters',
      });
      assert.equal(transport.sessionId, session);
      assert.match(dev.output(), /^Reloaded gateway alpha: echo$/m);
      // a broken edit changes nothing that serves
      fs.writeFileSync(path.join(app, 'app.js'), 'throw new Error("half-written");\n');
      await dev.waitFor(/^Reload failed, the gateways keep serving what they served: /m, 30_000);
      // with the app's own reason, as a start that fails shows it
      await dev.waitFor(/^--- synthesis output \(tail\) ---\n[^]*Error: half-written/m, 30_000);
      assert.deepEqual((await client.callTool({ name: 'echo', arguments: { word: 'hey' } })).structuredContent, {
        echo: 'hey',
      });
    } finally {
      await client.close();
    }
  });
});
