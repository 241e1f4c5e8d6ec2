/**
 * Backend host names resolved once for every connection, refreshed off the call's path: a resolver that loses
 * queries (a DNS pod gone with its node) delays no call once the name has an answer.
 */
import { strict as assert } from 'node:assert';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MAX_STALE_MS,
  REFRESH_AFTER_MS,
  sharedHostLookup,
  type LookupFunction,
} from '../../../src/gateway/upstream/host-lookup';
import { ServiceClient } from '../../../src/gateway/upstream/service-client';
import { BodyThread } from '../../../src/gateway/upstream/body-thread';
import { planServiceCall } from '../../../src/gateway/upstream/request-plan';

type Callback = Parameters<LookupFunction>[2];

/** A resolver the test answers by hand: every query waits in `queries` until answered. */
function manualResolver(): {
  resolve: LookupFunction;
  queries: { hostname: string; options: LookupOptions; cb: Callback }[];
} {
  const queries: { hostname: string; options: LookupOptions; cb: Callback }[] = [];
  return { resolve: (hostname, options, cb) => void queries.push({ hostname, options, cb }), queries };
}

/** What one lookup called back with. */
function lookupOnce(
  lookup: ReturnType<typeof sharedHostLookup>,
  hostname: string,
  options: LookupOptions = { all: true },
): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }> {
  return new Promise((resolve) => lookup(hostname, options, (err, address) => resolve({ err, address })));
}

const tick = () => new Promise((r) => setImmediate(r));
const v4 = (...addresses: string[]): LookupAddress[] => addresses.map((address) => ({ address, family: 4 }));

describe('backend host lookup', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000_000;
  });

  /** A lookup whose first query for `orders.internal` was answered `10.0.0.7` just now. */
  async function resolvedOnce() {
    const { resolve, queries } = manualResolver();
    const lookup = sharedHostLookup(resolve, now);
    const first = lookupOnce(lookup, 'orders.internal');
    queries[0].cb(null, v4('10.0.0.7'));
    await first;
    return { lookup, queries };
  }

  it('asks the resolver once for every connection opened while the first lookup runs, and answers them all', async () => {
    const { resolve, queries } = manualResolver();
    const lookup = sharedHostLookup(resolve, now);
    const answers = [1, 2, 3, 4, 5].map(() => lookupOnce(lookup, 'orders.internal'));
    await tick();
    assert.equal(queries.length, 1);
    queries[0].cb(null, v4('10.0.0.7'));
    for (const { err, address } of await Promise.all(answers)) {
      assert.equal(err, null);
      assert.deepEqual(address, v4('10.0.0.7'));
    }
  });

  it('answers from the last answer without a query while it is fresh', async () => {
    const { lookup, queries } = await resolvedOnce();
    clock += REFRESH_AFTER_MS - 1;
    assert.deepEqual((await lookupOnce(lookup, 'orders.internal')).address, v4('10.0.0.7'));
    assert.equal(queries.length, 1);
  });

  it('answers an older answer at once and refreshes it in the background; a resolver that never answers delays nothing', async () => {
    const { lookup, queries } = await resolvedOnce();
    clock += REFRESH_AFTER_MS;
    // the refresh gets no answer (a query lost): connections keep getting the last one, and only one query is asked
    for (let i = 0; i < 3; i++) {
      const { err, address } = await lookupOnce(lookup, 'orders.internal');
      assert.equal(err, null);
      assert.deepEqual(address, v4('10.0.0.7'));
    }
    assert.equal(queries.length, 2);
    // the refresh's answer is used from then on
    queries[1].cb(null, v4('10.0.0.8'));
    assert.deepEqual((await lookupOnce(lookup, 'orders.internal')).address, v4('10.0.0.8'));
  });

  it('keeps the last answer when a refresh fails, until it is too old; then the next connection waits for the resolver', async () => {
    const { lookup, queries } = await resolvedOnce();
    clock += REFRESH_AFTER_MS;
    await lookupOnce(lookup, 'orders.internal');
    queries[1].cb(Object.assign(new Error('getaddrinfo EAI_AGAIN orders.internal'), { code: 'EAI_AGAIN' }), '');
    assert.deepEqual((await lookupOnce(lookup, 'orders.internal')).address, v4('10.0.0.7'));
    clock += MAX_STALE_MS;
    let settled = false;
    const waited = lookupOnce(lookup, 'orders.internal').finally(() => (settled = true));
    await tick();
    assert.equal(settled, false, 'an answer too old is not used');
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND orders.internal'), { code: 'ENOTFOUND' });
    queries[queries.length - 1].cb(failure, '');
    assert.equal((await waited).err, failure);
  });

  it('passes a failed first lookup to every connection waiting for it, and asks again for the next one', async () => {
    const { resolve, queries } = manualResolver();
    const lookup = sharedHostLookup(resolve, now);
    const waiting = [lookupOnce(lookup, 'gone.internal'), lookupOnce(lookup, 'gone.internal')];
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND gone.internal'), { code: 'ENOTFOUND' });
    queries[0].cb(failure, '');
    for (const { err } of await Promise.all(waiting)) assert.equal(err, failure);
    const again = lookupOnce(lookup, 'gone.internal');
    assert.equal(queries.length, 2, 'a failure is not kept');
    queries[1].cb(null, v4('10.0.0.9'));
    assert.deepEqual((await again).address, v4('10.0.0.9'));
  });

  it('keeps names and lookup options apart, and passes a resolver that throws as an error', async () => {
    const { resolve, queries } = manualResolver();
    const lookup = sharedHostLookup(resolve, now);
    const a = lookupOnce(lookup, 'a.internal');
    const b = lookupOnce(lookup, 'b.internal');
    const one = lookupOnce(lookup, 'a.internal', { family: 4 });
    assert.deepEqual(
      queries.map((q) => [q.hostname, q.options.all === true]),
      [
        ['a.internal', true],
        ['b.internal', true],
        ['a.internal', false],
      ],
    );
    queries[0].cb(null, v4('10.0.0.1'));
    queries[1].cb(null, v4('10.0.0.2'));
    queries[2].cb(null, '10.0.0.3', 4);
    assert.deepEqual((await a).address, v4('10.0.0.1'));
    assert.deepEqual((await b).address, v4('10.0.0.2'));
    assert.equal((await one).address, '10.0.0.3');

    const throwing = sharedHostLookup(() => {
      throw new TypeError('bad hostname');
    }, now);
    assert.match(String((await lookupOnce(throwing, 'x.internal')).err), /bad hostname/);
  });

  it('spreads new connections over the addresses of one family, and keeps the order of a list of both', async () => {
    const { resolve, queries } = manualResolver();
    const lookup = sharedHostLookup(resolve, now);
    const first = lookupOnce(lookup, 'pods.internal');
    queries[0].cb(null, v4('10.0.0.1', '10.0.0.2', '10.0.0.3'));
    await first;
    const firsts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { address } = await lookupOnce(lookup, 'pods.internal');
      firsts.push((address as LookupAddress[])[0].address);
      assert.equal((address as LookupAddress[]).length, 3);
    }
    assert.deepEqual([...firsts].sort(), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);

    const mixed = [
      { address: '10.0.0.1', family: 4 },
      { address: 'fd00::1', family: 6 },
    ];
    const both = lookupOnce(lookup, 'dual.internal');
    queries[1].cb(null, mixed);
    await both;
    for (let i = 0; i < 2; i++) assert.deepEqual((await lookupOnce(lookup, 'dual.internal')).address, mixed);
  });
});

describe('service calls and the backend host lookup', function () {
  this.timeout(10_000);
  let server: Server;
  let port: number;
  let client: ServiceClient | undefined;

  before(async () => {
    // every answer closes its connection: each call opens a new one, and so looks its host up
    server = createServer((_req, res) => {
      res.setHeader('connection', 'close');
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
  });

  it('a name resolved ahead (as a start does) serves the first call with no query of its own', async () => {
    const { resolve, queries } = manualResolver();
    const services = new ServiceClient(1024 * 1024, new BodyThread(), undefined, sharedHostLookup(resolve));
    client = services;
    let resolved = false;
    const ahead = services.resolve('orders.cluster.test').then(() => (resolved = true));
    assert.equal(queries.length, 1);
    await tick();
    assert.equal(resolved, false, 'settles with the lookup');
    queries[0].cb(null, v4('127.0.0.1'));
    await ahead;
    await services.resolve('127.0.0.1');
    assert.equal(queries.length, 1, 'an address needs no lookup');
    const plan = planServiceCall({
      name: 'get_order',
      description: 'd',
      input_schema: { type: 'object' },
      backend: { url: `http://orders.cluster.test:${port}/orders`, method: 'GET', timeout_ms: 2_000 },
    });
    const first = await services.call(plan, {});
    assert.equal(first.ok, true, JSON.stringify(first));
    assert.equal(queries.length, 1, "the connection's lookup found the answer: same name and options");
  });

  it('reaches a backend by a name only the lookup knows, and keeps calling it while the resolver stops answering', async () => {
    let clock = 0;
    const queries: Callback[] = [];
    // the first query answers; later ones never do, as when the DNS pod they reached is gone
    const resolve: LookupFunction = (_hostname, options, cb) => {
      queries.push(cb);
      if (queries.length === 1) {
        if (options.all === true) cb(null, v4('127.0.0.1'));
        else cb(null, '127.0.0.1', 4);
      }
    };
    const services = new ServiceClient(
      1024 * 1024,
      new BodyThread(),
      undefined,
      sharedHostLookup(resolve, () => clock),
    );
    const plan = planServiceCall({
      name: 'get_order',
      description: 'd',
      input_schema: { type: 'object' },
      backend: { url: `http://orders.cluster.test:${port}/orders`, method: 'GET', timeout_ms: 2_000 },
    });
    client = services;
    const first = await services.call(plan, {});
    assert.equal(first.ok, true, JSON.stringify(first));
    clock += REFRESH_AFTER_MS;
    // new connections while the refresh gets no answer
    for (let i = 0; i < 3; i++) {
      const again = await services.call(plan, {});
      assert.equal(again.ok, true, JSON.stringify(again));
    }
    assert.equal(queries.length, 2, 'one refresh, in the background');
  });
});
