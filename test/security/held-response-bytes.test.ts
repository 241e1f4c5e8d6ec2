/**
 * Many large answers at once: 64 concurrent 4 MiB bodies held 1.06 GB. The bytes of responses held over every
 * call are bounded (`max_held_response_bytes`); a call whose answer would pass the bound is refused with a clear
 * result, the others are served, and the count returns to zero.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { planServiceCall, ServiceClient } from '../../src/gateway/upstream';
import { BodyThread } from '../../src/gateway/upstream/body-thread';
import { tool } from '../helpers/config';

const MIB = 1024 * 1024;

describe('security: response bytes held across calls are bounded', function () {
  this.timeout(30_000);
  let server: http.Server;
  let url = '';

  before(async () => {
    // 1 MiB of a JSON string, the last bytes after a pause: every call holds its body for a while
    server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(`{"a":"${'x'.repeat(MIB - 10)}`);
      setTimeout(() => res.end('"}'), 300);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses the calls past the bound with a clear result, serves the rest, and holds nothing after', async () => {
    const client = new ServiceClient(4 * MIB, new BodyThread(), 3 * MIB);
    try {
      const plan = planServiceCall(tool('big', url));
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => client.call(plan, {})));
      const refused = outcomes.filter((o) => !o.ok);
      const served = outcomes.filter((o) => o.ok);
      assert.ok(served.length >= 1 && served.length <= 3, `${served.length} served`);
      assert.ok(refused.length >= 5, `${refused.length} refused`);
      for (const o of refused) {
        assert.deepEqual(o, {
          ok: false,
          code: 'RESPONSES_HELD_FULL',
          message: `Service response refused: the gateway holds its limit of ${3 * MIB} bytes of responses for other calls (max_held_response_bytes); retry shortly`,
        });
      }
      assert.equal(client.heldBytes, 0);
      // the bound is per moment, not per lifetime: the next call is served
      assert.equal((await client.call(plan, {})).ok, true);
      assert.equal(client.heldBytes, 0);
    } finally {
      await client.close();
    }
  });
});
