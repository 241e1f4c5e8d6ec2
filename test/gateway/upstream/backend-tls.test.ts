/**
 * HTTPS backends with a CA of their own (docs/constructs.md `endpoint.tls.caFile`): a loopback HTTPS backend whose
 * certificate (for 127.0.0.1 and localhost) is signed by a CA this test makes with openssl. With the CA named
 * (file or secret) a call succeeds; without it, or with another CA, it fails with `isError` and a short reason.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConfigError, type ToolConfig } from '../../../src/config';
import { buildGatewayState } from '../../../src/gateway/state/gateway-state';
import { silentLogger } from '../../../src/gateway';
import { botConfig, tool } from '../../helpers/config';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { openSession } from '../../helpers/mcp';
import { BOT } from '../../helpers/tokens';
import type { RunningGateway } from '../../../src/gateway';

/** A CA and a leaf certificate for 127.0.0.1/localhost signed by it, made with openssl in `dir`. */
function makeCertificates(dir: string, prefix: string): { ca: string; key: string; cert: string } {
  const f = (name: string): string => path.join(dir, `${prefix}-${name}`);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  };
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    `/CN=${prefix} test CA`,
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('leaf.key'),
    '-out',
    f('leaf.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  openssl(
    'x509',
    '-req',
    '-in',
    f('leaf.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('leaf.pem'),
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
  );
  return { ca: f('ca.pem'), key: f('leaf.key'), cert: f('leaf.pem') };
}

function httpsTool(name: string, url: string, tls?: ToolConfig['backend']['tls']): ToolConfig {
  const t = tool(name, url);
  return { ...t, backend: { ...t.backend, ...(tls ? { tls } : {}), timeout_ms: 5_000 } };
}

describe('HTTPS backends with a custom CA', function () {
  this.timeout(60_000);
  let dir: string;
  let server: https.Server;
  let url: string;
  let ca: string;
  let otherCa: string;
  let gateway: RunningGateway;
  const SECRET = 'BACKEND_TLS_TEST_CA';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'backend-tls-'));
    const made = makeCertificates(dir, 'backend');
    ca = made.ca;
    otherCa = makeCertificates(dir, 'other').ca;
    server = https.createServer({ key: readFileSync(made.key), cert: readFileSync(made.cert) }, (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, secure: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env[SECRET] = readFileSync(ca, 'utf8');
    gateway = await startSilentGateway(
      botConfig([
        httpsTool('with_ca_file', `${url}/a`, { ca_file: ca }),
        httpsTool('with_ca_secret', `${url}/b`, { ca_secret: SECRET }),
        httpsTool('with_localhost_name', url.replace('127.0.0.1', 'localhost') + '/c', { ca_file: ca }),
        httpsTool('without_ca', `${url}/d`),
        httpsTool('with_other_ca', `${url}/e`, { ca_file: otherCa }),
      ]),
    );
  });

  after(async () => {
    Reflect.deleteProperty(process.env, SECRET);
    await gateway?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  for (const name of ['with_ca_file', 'with_ca_secret', 'with_localhost_name']) {
    it(`calls the backend over TLS when its CA is named (${name})`, async () => {
      const session = await openSession(gateway.url, { token: BOT.token });
      const res = await session.callTool(name, {});
      assert.equal(res.message?.result?.isError, undefined, res.text);
      assert.equal(res.message?.result?.structuredContent?.secure, true, res.text);
    });
  }

  for (const name of ['without_ca', 'with_other_ca']) {
    it(`answers isError with a short reason when the certificate is not trusted (${name})`, async () => {
      const session = await openSession(gateway.url, { token: BOT.token });
      const res = await session.callTool(name, {});
      assert.equal(res.message?.result?.isError, true, res.text);
      assert.deepEqual(res.message?.result?.content, [
        { type: 'text', text: 'Service unavailable: TLS certificate not trusted' },
      ]);
    });
  }

  it('refuses at load a CA file that is missing or holds no certificate, in one line naming the field', () => {
    const state = (tls: ToolConfig['backend']['tls']): Error => {
      try {
        buildGatewayState(botConfig([httpsTool('t', `${url}/x`, tls)]), '127.0.0.1', silentLogger);
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected a ConfigError');
    };
    const missing = state({ ca_file: path.join(dir, 'nope.pem') });
    assert.ok(missing instanceof ConfigError);
    assert.equal(missing.message, `tools[0].backend.tls.ca_file: cannot read ${path.join(dir, 'nope.pem')} (ENOENT)`);
    writeFileSync(path.join(dir, 'garbage.pem'), 'not a certificate');
    assert.equal(
      state({ ca_file: path.join(dir, 'garbage.pem') }).message,
      'tools[0].backend.tls.ca_file: holds no PEM certificate (-----BEGIN CERTIFICATE-----)',
    );
    writeFileSync(path.join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    assert.equal(
      state({ ca_file: path.join(dir, 'broken.pem') }).message,
      'tools[0].backend.tls.ca_file: certificate 1 of the bundle does not parse',
    );
  });
});
