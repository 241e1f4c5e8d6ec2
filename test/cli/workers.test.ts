/**
 * `serve --workers N`: the flag, the refusals (one line each), and N processes sharing one port (with a Node
 * that binds with SO_REUSEPORT: see test/helpers/reuse-port-node.ts; pending outside CI without one).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { parseServeArgs } from '../../src/cli/serve-command';
import { reusePortSupport } from '../../src/gateway/reuse-port';
import { startBackend, type TestBackend } from '../helpers/backend';
import { gatewayConfig, supportDeskTools } from '../helpers/config';
import {
  cliNodeArgs,
  killAllGatewayProcesses,
  runCli,
  startGatewayProcess,
  writeTempConfig,
} from '../helpers/gateway-process';
import { openSession } from '../helpers/mcp';
import { ciRequired, reusePortNode } from '../helpers/reuse-port-node';
import { tempDir } from '../helpers/temp-dir';
import { makeToken } from '../helpers/tokens';
import { freePort } from '../image/docker';

const bot = makeToken('workers-bot');

/** A `get_customer` call of session `sessionId` on a connection of its own (no keep-alive). */
function postOnNewConnection(port: number, sessionId: string, i: number): Promise<{ status: number; text: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: i + 10,
    method: 'tools/call',
    params: { name: 'get_customer', arguments: { customer_id: `C-${String(i).padStart(4, '0')}` } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        timeout: 10_000,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${bot.token}`,
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('serve --workers', () => {
  describe('the flag', () => {
    it('parses --workers N, and leaves it out when absent', () => {
      assert.equal((parseServeArgs(['--config', 'g.json', '--workers', '4']) as { workers?: number }).workers, 4);
      assert.equal('workers' in (parseServeArgs(['--config', 'g.json']) as object), false);
    });

    for (const bad of ['0', '65', '1.5', '-1', 'two', '', '1e1', '0x2']) {
      it(`refuses --workers=${JSON.stringify(bad)}`, () => {
        assert.throws(() => parseServeArgs(['--config', 'g.json', `--workers=${bad}`]), {
          message: `--workers: must be an integer 1-64, got ${JSON.stringify(bad)}`,
        });
      });
    }
  });

  describe('refusals', function () {
    this.timeout(20_000);
    after(() => killAllGatewayProcesses());

    if (reusePortSupport().supported) {
      it('NOT RUN: this Node shares ports, so it never refuses --workers for want of SO_REUSEPORT');
    } else {
      it('exits 2 with one line where Node cannot share the port', async () => {
        const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: [] }));
        const r = await runCli(['serve', '--config', configPath, '--workers', '2']);
        assert.equal(r.code, 2);
        assert.equal(
          r.stderr,
          `cdktf-mcp-gateway: --workers needs SO_REUSEPORT to share the port: reusePort needs Node >= 22.12 (this is Node ${process.versions.node})\n`,
        );
      });
    }

    const node = reusePortNode();
    if ('path' in node) {
      it('exits 2 with one line for port 0 (each worker would get a port of its own)', async () => {
        const { configPath } = writeTempConfig(gatewayConfig({ tokens: [bot], tools: [] }));
        const child = spawn(
          node.path,
          cliNodeArgs(['serve', '--config', configPath, '--port', '0', '--workers', '2']),
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        assert.equal(code, 2);
        assert.equal(
          stderr,
          'cdktf-mcp-gateway: --workers needs a fixed port: with port 0 each worker would listen on a port of its own\n',
        );
      });
    }
  });

  describe('two workers', function () {
    const node = reusePortNode();
    if ('missing' in node) {
      if (ciRequired()) it('runs under CI', () => assert.fail(`--workers is required under CI but ${node.missing}`));
      else it(`NOT RUN: ${node.missing}`);
      return;
    }
    this.timeout(60_000);
    let backend: TestBackend;
    before(async () => {
      backend = await startBackend();
    });
    after(async () => {
      await killAllGatewayProcesses();
      await backend?.close();
    });

    it('start two processes on the port, answer calls, and stop both on SIGTERM to the primary, exit 0', async () => {
      const port = await freePort();
      const config = gatewayConfig({
        tokens: [bot],
        tools: supportDeskTools(backend.url),
        settings: { host: '127.0.0.1' },
      });
      const gw = await startGatewayProcess({
        config,
        port,
        nodePath: node.path,
        extraArgs: ['--workers', '2'],
        startTimeoutMs: 30_000,
      });
      await gw.waitForOutput(/"msg":"workers listening"/, 30_000);
      const listening = gw.logLines().filter((l) => (l as { msg?: string }).msg === 'listening') as {
        url: string;
        reuse_port: boolean;
      }[];
      assert.equal(listening.length, 2);
      assert.deepEqual(
        listening.map((l) => [l.url, l.reuse_port]),
        [
          [gw.url, true],
          [gw.url, true],
        ],
      );
      const session = await openSession(gw.url, { token: bot.token });
      // a new connection per call: the kernel spreads them over both workers, which share the primary's key
      for (let i = 0; i < 20; i++) {
        const res = await postOnNewConnection(gw.port, session.sessionId, i);
        assert.equal(res.status, 200, res.text);
        assert.match(res.text, /"structuredContent":\{"method":"GET"/);
      }
      assert.deepEqual(await gw.stop('SIGTERM', 20_000), { code: 0, signal: null });
      assert.equal(gw.logLines().filter((l) => (l as { msg?: string }).msg === 'stopped').length, 2);
    });

    it('a SIGHUP to the primary while its workers start reloads them once they listen, and kills none', async () => {
      // The primary sends itself a SIGHUP right after it forks the first worker; each worker, before it runs a
      // line of the CLI, waits half a second (a slow start). Forwarded then, the SIGHUP would end the worker.
      const preload = join(tempDir('gw-workers-hangup-'), 'hang-up-on-fork.js');
      writeFileSync(
        preload,
        `if (process.env.CDKTF_MCP_GATEWAY_WORKER !== undefined) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
} else {
  const childProcess = require('node:child_process');
  const fork = childProcess.fork;
  childProcess.fork = function () {
    childProcess.fork = fork;
    const child = fork.apply(this, arguments);
    process.kill(process.pid, 'SIGHUP');
    return child;
  };
}
`,
      );
      const gw = await startGatewayProcess({
        config: gatewayConfig({ tokens: [bot], tools: [] }),
        port: await freePort(),
        nodePath: node.path,
        extraArgs: ['--workers', '2'],
        startTimeoutMs: 30_000,
        env: { NODE_OPTIONS: `--require ${preload}` },
      });
      await gw.waitForOutput(/"msg":"workers listening"/, 30_000);
      await gw.waitForOutput(/"msg":"config reloaded"[^\n]*\n(?:.*\n)*.*"msg":"config reloaded"/, 10_000);
      assert.deepEqual(await gw.stop('SIGTERM', 20_000), { code: 0, signal: null });
      assert.equal(gw.logLines().filter((l) => (l as { msg?: string }).msg === 'stopped').length, 2);
    });
  });
});
