/**
 * Session-token benchmark: issuing and verifying the signed, stateless session ids of the 2025 revisions
 * (`src/gateway/mcp/session-token.ts`), beside a `Map.get` (what the session map did) for scale, and the refusal
 * of a tampered id and of a 1 MiB id. Run alone with `node dist/bench/session-token.js`; `run.ts` does not list it
 * yet (wire it in when the signer replaces the session map).
 */
import { randomBytes } from 'node:crypto';
import { createSessionSigner } from '../src/gateway/mcp/2025/session-token';

interface Row {
  readonly case: string;
  readonly perCallMs: number;
}

async function measure(name: string, batch: number, fn: () => void): Promise<Row> {
  // tinybench is an ES module: loaded with a dynamic import from this CommonJS build.
  const { Bench } = await import('tinybench');
  const bench = new Bench({ time: 400, warmupTime: 100 });
  bench.add(name, () => {
    for (let i = 0; i < batch; i++) fn();
  });
  await bench.run();
  const result = bench.getTask(name)?.result as { period?: number } | undefined;
  return { case: name, perCallMs: (result?.period ?? NaN) / batch };
}

function format(ms: number): string {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : ms >= 0.001 ? `${(ms * 1000).toFixed(2)} µs` : `${(ms * 1e6).toFixed(0)} ns`;
}

/** Runs the session-token benchmark and prints its table. */
export async function runSessionTokenBench(): Promise<void> {
  const signer = createSessionSigner({ key: randomBytes(32), ttlMs: 3_600_000 });
  const claims = {
    principal: 'ci-bot',
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'claude-code', version: '2.1.0' },
  };
  const id = signer.issue(claims);
  const tampered = `${id.slice(0, 10)}${id[10] === 'A' ? 'B' : 'A'}${id.slice(11)}`;
  const huge = 'A'.repeat(1024 * 1024);
  if (!signer.verify(id, 'ci-bot') || signer.verify(tampered, 'ci-bot') || signer.verify(huge, 'ci-bot')) {
    throw new Error('benchmark ids misclassified');
  }
  const map = new Map([[randomBytes(16).toString('hex'), claims]]);
  const key = [...map.keys()][0];

  const rows: Row[] = [];
  rows.push(await measure('issue', 200, () => signer.issue(claims)));
  rows.push(
    await measure('verify (valid, seen before: from the verified cache)', 200, () => signer.verify(id, 'ci-bot')),
  );
  // A cache of one entry and two ids used in turn: every verification is a miss (the HMAC and the decoding).
  const uncached = createSessionSigner({ key: randomBytes(32), ttlMs: 3_600_000, verifiedCache: { maxEntries: 1 } });
  const pair = [uncached.issue(claims), uncached.issue(claims)];
  let turn = 0;
  rows.push(
    await measure('verify (valid, first sight: HMAC and decoding)', 200, () =>
      uncached.verify(pair[turn++ & 1], 'ci-bot'),
    ),
  );
  rows.push(await measure('verify (tampered: refused after the HMAC)', 200, () => signer.verify(tampered, 'ci-bot')));
  rows.push(await measure('verify (1 MiB id: refused on length)', 1000, () => signer.verify(huge, 'ci-bot')));
  rows.push(await measure('Map.get of a random id (the session map, for scale)', 1000, () => map.get(key)));

  console.log(`id length: ${id.length} characters\n`);
  console.log('| case | ops/s | mean |');
  console.log('| --- | ---: | ---: |');
  for (const row of rows)
    console.log(
      `| ${row.case} | ${Math.round(1000 / row.perCallMs).toLocaleString('en-US')} | ${format(row.perCallMs)} |`,
    );
}

if (require.main === module) {
  runSessionTokenBench().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
