import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isAlive, killGroup, processTree, spawnGroup, Spawned } from './process-helpers';
import { eventually } from '../helpers/eventually';

const root = path.resolve(__dirname, '../..');

describe('npm run demo (the demo script, as npm runs it after its build)', function () {
  this.timeout(120_000);
  let demo: Spawned | undefined;
  after(() => killGroup(demo?.child.pid));

  it('prints the refusal, the repair, the success, the legacy contrast and the flushed audit log, then leaves nothing running', async () => {
    demo = spawnGroup(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', 'examples/support-desk/agent/demo.ts'],
      { cwd: root },
    );
    // every process the demo starts, seen while it runs (dev, then the backend under it)
    const seen = new Set<number>();
    const watch = setInterval(() => processTree(demo!.child.pid!).forEach((p) => seen.add(p)), 200);
    let code: number | string;
    try {
      code = await demo.exited;
    } finally {
      clearInterval(watch);
    }
    const out = demo.output();
    assert.equal(code, 0, out);
    assert.ok(
      out.includes(
        'gateway: refused (tool result, isError)\n    Missing required parameter: `body`; ' +
          'Invalid type for `customer.addresses[0].zip_code`: expected integer; Unknown parameter: `urgency`\n',
      ),
      out,
    );
    assert.ok(out.includes('    - converted `customer.addresses[0].zip_code` from "10115" to 10115 (integer)\n'), out);
    assert.match(out, /^gateway: ok after 1 retry$/m);
    assert.ok(
      out.includes(
        'gateway (validate_input off): forwarded; the backend answered with an error:\n    Service error: HTTP 400\n',
      ),
      out,
    );
    assert.ok(
      out.includes(
        'gateway: checked against the declared output, email redacted:\n    ' +
          '{"customer_id":"C-0001","name":"Ada Lovelace","email":"[redacted]","plan":"enterprise",' +
          '"addresses":[{"street":"12 Analytical Row","city":"London","zip_code":10001}]}\n',
      ),
      out,
    );
    // the agent's own create_ticket arguments hold an email; nothing the gateway answered for get_customer does
    const controls = /=== Response controls[^\n]*\n([\s\S]*?)\n===/.exec(out)?.[1] ?? '';
    assert.match(controls, /email redacted/);
    assert.ok(!controls.includes('@example.com'), controls);
    assert.ok(
      out.includes('gateway: ok, checked against the document\'s 200 schema: T-1001 "Cannot log in" (open)\n'),
      out,
    );
    // read after the graceful stop: both records, none lost
    assert.match(
      out,
      /^refused {2}create_ticket by support-agents in [\d.]+ ms: Missing required parameter: `body`; /m,
    );
    assert.match(out, /^ok {7}create_ticket by support-agents in [\d.]+ ms$/m);
    assert.match(
      out,
      /=== Done: the agent succeeded after 1 retry =+\n+The audit logs stay in .*examples\/support-desk\/\.dev: npm start serves them, with the flagged agent, on its dashboard\.\n$/,
    );
    assert.match(
      out,
      /^dashboard http:\/\/127\.0\.0\.1:\d+\/: support-agents flagged as failing systematically \(\d+ of \d+ calls refused\)$/m,
    );
    assert.ok(seen.size >= 3, `the demo, dev and the backend ran: ${[...seen]}`);
    await eventually(() => assert.deepEqual([...seen].filter(isAlive), [], 'still running'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  });
});
