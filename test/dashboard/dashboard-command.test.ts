import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseDashboardArgs } from '../../src/cli/dashboard-command';
import { ConfigError } from '../../src/dashboard';

const HASH = 'a'.repeat(64);

describe('cdktf-mcp-gateway dashboard (flags and config file)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dash-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads repeated --audit-dir and --token-sha256, port, host and retention', () => {
    assert.deepEqual(
      parseDashboardArgs([
        '--audit-dir',
        'a',
        '--audit-dir',
        'b',
        '--port',
        '9000',
        '--host',
        '0.0.0.0',
        '--token-sha256',
        HASH,
        '--retention-days',
        '2',
      ]),
      {
        auditDirs: ['a', 'b'],
        port: 9000,
        host: '0.0.0.0',
        auth: { tokens: [{ id: 'token-1', sha256: HASH }] },
        retentionMs: 2 * 86_400_000,
        flag: { minRefusals: 10, minRate: 0.5 },
      },
    );
  });

  it('defaults to 127.0.0.1:8090, 7 days, no token', () => {
    const s = parseDashboardArgs(['--audit-dir', 'a']);
    assert.ok(s !== 'help');
    assert.equal(s.port, 8090);
    assert.equal(s.host, '127.0.0.1');
    assert.equal(s.auth, undefined);
    assert.equal(s.retentionMs, 7 * 86_400_000);
  });

  for (const [args, message] of [
    [[], '--audit-dir DIR is required (or --config FILE, whose audit_stores read gateways from a store)'],
    [['--audit-dir', 'a', '--port', '70000'], '--port: must be an integer 0-65535, got "70000"'],
    [
      ['--audit-dir', 'a', '--token-sha256', 'ABC'],
      '--token-sha256 must be 64 hex characters, the SHA-256 of the token (this value has 3 characters; make it with printf %s "$TOKEN" | sha256sum), never the token itself',
    ],
    [['--audit-dir', 'a', '--retention-days', '0'], '--retention-days: must be an integer 1-90, got "0"'],
    [['--config', 'x.json', '--port', '1'], '--config FILE cannot be combined with --port (put it in the file)'],
  ] as const) {
    it(`refuses ${JSON.stringify(args)} naming the flag`, () => {
      assert.throws(() => parseDashboardArgs(args), { message });
    });
  }

  it('reads the config-file form', () => {
    const file = path.join(dir, 'dashboard.json');
    writeFileSync(
      file,
      JSON.stringify({
        audit_dirs: ['/var/log/a', '/var/log/b'],
        port: 8091,
        host: '0.0.0.0',
        auth: { tokens: [{ id: 'ops', sha256: HASH }] },
        retention_ms: 3_600_000,
        flag: { min_refusals: 3, min_rate: 0.25 },
      }),
    );
    assert.deepEqual(parseDashboardArgs(['--config', file]), {
      auditDirs: ['/var/log/a', '/var/log/b'],
      port: 8091,
      host: '0.0.0.0',
      auth: { tokens: [{ id: 'ops', sha256: HASH }] },
      retentionMs: 3_600_000,
      flag: { minRefusals: 3, minRate: 0.25 },
    });
  });

  for (const [doc, message] of [
    [{}, 'audit_dirs: must name at least one directory, unless audit_stores names a store'],
    [
      { audit_dirs: ['a'], auth: { tokens: [] } },
      'auth: must be "none" or { tokens: [{ id, sha256 }, ...] } with at least one token',
    ],
    [
      { audit_dirs: ['a'], auth: { tokens: [{ id: 'x', sha256: 'nope' }] } },
      'auth.tokens[0].sha256 must be 64 hex characters, the SHA-256 of the token (this value has 4 characters; make it with printf %s "$TOKEN" | sha256sum), never the token itself',
    ],
    [{ audit_dirs: ['a'], flag: { min_rate: 2 } }, 'flag.min_rate: must be a number from 0 to 1, got 2'],
    [{ audit_stores: {} }, 'audit_stores: must be an array of { gateway, url, password_file? }'],
    [{ audit_stores: [{ gateway: 'gw' }] }, 'audit_stores[0].url: must be a redis:// or rediss:// URL'],
    [
      { audit_stores: [{ gateway: 'gw', url: 'redis://:hunter2@store:6379' }] },
      'audit_stores[0].url: must not carry a user or password: put the password in a file named by password_file',
    ],
    [
      { audit_stores: [{ gateway: 'gw', url: 'redis://store:6379', password_file: '/nonexistent/pw' }] },
      'audit_stores[0].password_file: cannot read "/nonexistent/pw": ENOENT (a file holding the store\'s password)',
    ],
    [
      { audit_stores: [{ gateway: 'gw', url: 'redis://store:6379', db: 1 }] },
      'audit_stores[0].db: unknown setting (expected gateway, url, password_file)',
    ],
    [
      { audit_dirs: ['a'], prot: 1 },
      'prot: unknown setting (expected one of audit_dirs, audit_stores, port, host, auth, retention_ms, flag)',
    ],
  ] as const) {
    it(`refuses the config ${JSON.stringify(doc)} naming the field`, () => {
      const file = path.join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(doc));
      assert.throws(
        () => parseDashboardArgs(['--config', file]),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError);
          assert.equal(err.message, `${file}: ${message}`);
          return true;
        },
      );
    });
  }
});

describe('cdktf-mcp-gateway dashboard (the built CLI)', () => {
  const CLI = path.resolve(__dirname, '../../dist/src/cli/main.js');

  it('exits 1 with one line when asked to listen off loopback without a token', () => {
    const result = spawnSync(
      process.execPath,
      [CLI, 'dashboard', '--audit-dir', tmpdir(), '--host', '0.0.0.0', '--port', '0'],
      { encoding: 'utf8', timeout: 15_000 },
    );
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr,
      'cdktf-mcp-gateway: dashboard: host 0.0.0.0 is not a loopback address, so a token is required ' +
        '(pass --token-sha256 HEX or set auth.tokens in the config file, or bind to 127.0.0.1)\n',
    );
  });

  it('prints "Dashboard: URL" on its own line, answers /healthz, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'dashboard', '--audit-dir', tmpdir(), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no Dashboard line: ${out}`)), 15_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const match = /^Dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      assert.equal((await fetch(`${url}healthz`)).status, 200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
