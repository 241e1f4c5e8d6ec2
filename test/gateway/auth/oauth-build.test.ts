/**
 * The built package (CommonJS) loads jose 6 (an ES module) with a dynamic import: a plain `node` process, without
 * ts-node, verifies a real token with `dist/`. Build first (`npm run build`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startOidcIssuer, type OidcIssuer } from '../../helpers/oidc-issuer';
import { GATEWAY_RESOURCE } from './support';

const DIST_AUTH = path.resolve(__dirname, '../../../dist/src/gateway/auth/index.js');

const SCRIPT = `
const { createOAuthVerifier } = require(process.argv[1]);
const [issuer, resourceUrl, token] = process.argv.slice(2);
createOAuthVerifier({ issuer }, { resourceUrl })
  .verify(token)
  .then((c) => console.log(JSON.stringify({ principal: c.principal, client: c.client, scopes: [...c.scopes] })))
  .catch((e) => { console.log(JSON.stringify({ error: e.error, description: e.description })); });
`;

describe('OAuth verifier from the CommonJS build', () => {
  let idp: OidcIssuer;
  before(async () => {
    idp = await startOidcIssuer({ resources: [GATEWAY_RESOURCE] });
  });
  after(() => idp.close());

  async function run(token: string): Promise<unknown> {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-e', SCRIPT, DIST_AUTH, idp.url, GATEWAY_RESOURCE, token],
      { timeout: 15_000 },
    );
    return JSON.parse(stdout);
  }

  it('verifies a real token and refuses a tampered one', async () => {
    const token = await idp.getToken({ scope: 'tools:read' });
    assert.deepEqual(await run(token), { principal: 'test-agent', client: 'test-agent', scopes: ['tools:read'] });
    assert.deepEqual(await run(`${token.slice(0, -4)}AAAA`), {
      error: 'invalid_token',
      description: 'the token signature is invalid',
    });
  });
});
