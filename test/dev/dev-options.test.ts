import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { devCommand, DevOptions, otherPortFlags, parseDevArgs, resolveGatewayPort } from '../../src/dev/dev-options';

/** The ports and maps are null-prototype objects (a gateway named `constructor` is looked up as itself). */
const bare = <T>(entries: Record<string, T>): Record<string, T> =>
  Object.assign(Object.create(null) as Record<string, T>, entries);

const parse = (argv: string[]): DevOptions => {
  const o = parseDevArgs(argv, '/work');
  assert.notEqual(o, 'help');
  return o as DevOptions;
};

describe('dev options', () => {
  it('defaults to the current directory, stack ports, dev.json backends and DIR/.dev audit logs', () => {
    assert.deepEqual(parse([]), {
      dir: '/work',
      ports: bare({}),
      portOffset: 0,
      maps: bare({}),
      stacks: [],
      startBackends: true,
      auditDir: path.join('/work', '.dev'),
      synthTimeoutMs: 120000,
      stateDir: path.join('/work', '.dev'),
      fresh: false,
    });
  });

  it('reads DIR, named ports, a port for the rest, an offset and backend maps', () => {
    const o = parse([
      'examples/app',
      '--port',
      'agents=9000',
      '--port=legacy=0',
      '--port',
      '0',
      '--port-offset',
      '100',
      '--map',
      'api:8080=127.0.0.1:3000',
      '--no-backends',
      '--audit-dir',
      'logs',
    ]);
    assert.equal(o.dir, '/work/examples/app');
    assert.deepEqual(o.ports, bare({ agents: 9000, legacy: 0 }));
    assert.equal(o.defaultPort, 0);
    assert.equal(o.portOffset, 100);
    assert.deepEqual(o.maps, bare({ 'api:8080': '127.0.0.1:3000' }));
    assert.equal(o.startBackends, false);
    assert.equal(o.auditDir, '/work/logs');
  });

  it('reads a negative --port-offset', () => {
    assert.equal(parse(['--port-offset', '-18080']).portOffset, -18080);
    assert.equal(parse(['--port-offset=-5']).portOffset, -5);
  });

  it('reads --stack, repeatable', () => {
    assert.deepEqual(parse(['--stack', 'desk', '--stack=ops']).stacks, ['desk', 'ops']);
  });

  it('returns help for --help', () => {
    assert.equal(parseDevArgs(['--help']), 'help');
  });

  it('refuses a bad port, a bad map, an unknown option and a second DIR with one-line reasons', () => {
    assert.throws(() => parse(['--port', 'agents=70000']), {
      message: "--port agents: must be an integer 0-65535, got '70000'",
    });
    assert.throws(() => parse(['--map', 'api=127.0.0.1:3000']), {
      message: "--map: expected HOST:PORT=HOST:PORT, got 'api=127.0.0.1:3000'",
    });
    assert.throws(() => parse(['--verbose']), { message: "unknown option '--verbose'" });
    assert.throws(() => parse(['a', 'b']), { message: "unexpected argument 'b' (DIR is already 'a')" });
    assert.throws(() => parse(['--port']), { message: '--port: missing value' });
  });

  it('picks the named port, then --port, then the stack port plus the offset', () => {
    const o = parse(['--port', 'agents=9000', '--port-offset', '10']);
    assert.equal(resolveGatewayPort(o, 'agents', 8080, 2), 9000);
    assert.equal(resolveGatewayPort(o, 'legacy', 8081, 2), 8091);
    assert.equal(resolveGatewayPort(parse(['--port', '0']), 'legacy', 8081, 2), 0);
    assert.equal(resolveGatewayPort(parse(['--port', '9000']), 'only', 8081, 1), 9000);
  });

  it('takes a negative --port-offset as a separate argument (parseArgs alone calls it ambiguous)', () => {
    assert.equal((parse(['--port-offset', '-18080']) as { portOffset: number }).portOffset, -18080);
    assert.equal((parse(['--port-offset=-5']) as { portOffset: number }).portOffset, -5);
    assert.throws(() => parse(['--port-offset', '--map']), { message: '--port-offset: missing value' });
  });

  it('refuses one fixed port for several gateways', () => {
    assert.throws(() => resolveGatewayPort(parse(['--port', '9000']), 'agents', 8080, 2), {
      message: '--port 9000: the app has 2 gateways; use --port NAME=PORT or --port 0',
    });
  });
});

describe('devCommand', () => {
  const npm = 'npm/10.8.2 node/v22.23.5 linux x64 workspaces/false';
  const start = {
    npm_lifecycle_event: 'start',
    npm_lifecycle_script: 'npm run build && node dist/src/cli/main.js dev x',
    npm_config_user_agent: npm,
  };

  it('words a flag as the user passes it: after -- through the npm script that runs dev', () => {
    assert.equal(devCommand('--fresh', start), 'npm start -- --fresh');
    const dev = {
      npm_lifecycle_event: 'dev',
      npm_lifecycle_script: 'tsc && cdktf-mcp-gateway dev .',
      npm_config_user_agent: npm,
    };
    assert.equal(devCommand('--port 0', dev), 'npm run dev -- --port 0');
    assert.equal(
      otherPortFlags(['--port agents=PORT', '--port-offset N', '--port 0'], start),
      'npm start -- --port agents=PORT, npm start -- --port-offset N or npm start -- --port 0',
    );
  });

  it('says dev FLAGS when no npm script ends by running dev', () => {
    assert.equal(devCommand('--fresh', {}), 'dev --fresh');
    assert.equal(
      otherPortFlags(['--port agents=PORT', '--port-offset N', '--port 0'], {}),
      '--port agents=PORT, --port-offset N or --port 0',
    );
    // a test run spawning dev inherits `npm test`'s variables: its flags are not that script's
    const test = {
      npm_lifecycle_event: 'test',
      npm_lifecycle_script: 'mocha "test/**/*.test.ts"',
      npm_config_user_agent: npm,
    };
    assert.equal(devCommand('--fresh', test), 'dev --fresh');
    // flags after `--` go to the script's last command, not to dev, when something follows it
    for (const script of [
      'cdktf-mcp-gateway dev . | tee dev.log',
      'cdktf-mcp-gateway dev . && echo done',
      'cdktf-mcp-gateway dev .; echo done',
    ]) {
      assert.equal(devCommand('--fresh', { ...start, npm_lifecycle_script: script }), 'dev --fresh', script);
    }
    // yarn and pnpm run scripts with npm's variables but pass flags on without `--`
    assert.equal(
      devCommand('--fresh', { ...start, npm_config_user_agent: 'yarn/1.22.22 npm/? node/v22.23.5' }),
      'dev --fresh',
    );
    assert.equal(
      devCommand('--fresh', { ...start, npm_config_user_agent: 'pnpm/9.15.0 npm/? node/v22.23.5' }),
      'dev --fresh',
    );
  });
});
