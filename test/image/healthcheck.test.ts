import * as assert from 'node:assert/strict';
import * as path from 'node:path';

// image/healthcheck.js is plain JavaScript shipped into the image; its URL logic is exported for this test.

const { healthUrl } = require(path.resolve(__dirname, '../../image/healthcheck.js')) as {
  healthUrl(
    args: string[],
    env: Record<string, string | undefined>,
    readSettings: (file: string) => Record<string, unknown>,
  ): string;
};

const serveArgs = (...extra: string[]) => [
  'node',
  '/app/dist/src/cli/main.js',
  'serve',
  '--config',
  '/etc/cdktf-mcp-gateway/gateway.json',
  ...extra,
];
const noConfig = () => ({});

describe('image healthcheck URL', () => {
  it('probes 127.0.0.1:8080/healthz when nothing says otherwise', () => {
    assert.equal(healthUrl(serveArgs(), {}, noConfig), 'http://127.0.0.1:8080/healthz');
  });

  it('follows --port and --host from the gateway command line', () => {
    assert.equal(
      healthUrl(serveArgs('--port', '9090', '--host', '10.0.0.7'), {}, noConfig),
      'http://10.0.0.7:9090/healthz',
    );
    assert.equal(healthUrl(serveArgs('--port=9191'), {}, noConfig), 'http://127.0.0.1:9191/healthz');
  });

  it('falls back to the port and host of the config file named by --config', () => {
    const seen: string[] = [];
    const url = healthUrl(['node', 'main.js', 'serve', '--config', '/cfg/gw.yaml'], {}, (file) => {
      seen.push(file);
      return { port: 7070, host: '0.0.0.0' };
    });
    assert.equal(url, 'http://127.0.0.1:7070/healthz');
    assert.deepEqual(seen, ['/cfg/gw.yaml']);
  });

  it('lets --port win over the config port', () => {
    assert.equal(
      healthUrl(serveArgs('--port', '9090'), {}, () => ({ port: 7070 })),
      'http://127.0.0.1:9090/healthz',
    );
  });

  it('brackets an IPv6 host and maps the wildcard :: to loopback', () => {
    assert.equal(healthUrl(serveArgs('--host', '::1'), {}, noConfig), 'http://[::1]:8080/healthz');
    assert.equal(healthUrl(serveArgs('--host', '::'), {}, noConfig), 'http://127.0.0.1:8080/healthz');
  });

  it('uses GATEWAY_HEALTH_URL as is when set', () => {
    assert.equal(
      healthUrl(serveArgs('--port', '1'), { GATEWAY_HEALTH_URL: 'http://127.0.0.1:5/healthz' }, noConfig),
      'http://127.0.0.1:5/healthz',
    );
  });
});
