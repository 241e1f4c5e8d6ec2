/**
 * A reload of a large config file: read, parsed and checked on a thread, then parsed here between calls. It gives
 * what reading in place gives (the config, the digest, the refusal with its message), and a gateway keeps
 * answering calls while it reloads one.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type GatewayConfig } from '../../../src/config';
import { readGatewayConfigFile } from '../../../src/config/load-config';
import { readConfigInSlices, THREAD_MIN_BYTES } from '../../../src/gateway/reload/config-thread';
import { Slicer } from '../../../src/gateway/reload/event-loop-slices';
import { startFakeService, type FakeService } from '../../helpers/backend';
import { botConfig, objectSchema, tool } from '../../helpers/config';
import { startSilentGateway } from '../../helpers/in-process-gateway';
import { initializeSession, rawCall } from '../../helpers/mcp';

const silent = () => undefined;

/** `count` tools, each with its own schema: a file of about 400 bytes per tool. */
function manyTools(url: string, count: number, prefix = 'tool') {
  return Array.from({ length: count }, (_, i) =>
    tool(`${prefix}_${i}`, `${url}/health`, {
      inputSchema: objectSchema({ [`id_${i}`]: { type: 'string', pattern: `^X${i}-[0-9]{4}$` } }, []),
    }),
  );
}

describe('reload of a large config', function () {
  this.timeout(60_000);
  let service: FakeService;
  let dir: string;
  before(async () => {
    service = await startFakeService();
    dir = mkdtempSync(join(tmpdir(), 'gw-config-thread-'));
  });
  after(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, config: unknown): string => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(config, null, 2));
    return file;
  };

  it('reads a file past the threshold on the thread: the same config and digest as in place', async () => {
    const config = botConfig(manyTools(service.url, 2_000));
    const file = write('large.json', config);
    assert.ok(statSync(file).size >= THREAD_MIN_BYTES, 'the file is large enough for the thread');
    const inPlace = readGatewayConfigFile(file);
    const logged: string[] = [];
    const sliced = await readConfigInSlices(file, (_level, msg) => logged.push(msg), new Slicer(0));
    assert.deepEqual(logged, [], 'the thread did its work');
    assert.equal(sliced.digest, inPlace.digest);
    assert.deepEqual(sliced.config, inPlace.config);
    assert.deepEqual(Object.keys(sliced.config), Object.keys(inPlace.config));
  });

  it('refuses a large file with the message reading it in place gives', async () => {
    const config = botConfig(manyTools(service.url, 2_000)) as GatewayConfig & { tools: unknown[] };
    (config.tools[1_500] as { name: string }).name = 'Not A Name';
    const file = write('refused.json', config);
    const inPlace = (() => {
      try {
        readGatewayConfigFile(file);
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    assert.ok(inPlace instanceof ConfigError);
    await assert.rejects(readConfigInSlices(file, silent), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.message, inPlace.message);
      return true;
    });
    writeFileSync(file, `{"tools": [${' '.repeat(THREAD_MIN_BYTES)}`);
    await assert.rejects(readConfigInSlices(file, silent), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /^invalid JSON in /);
      return true;
    });
  });

  it('refuses a read the thread does not finish in time, without reading in place', async () => {
    const file = write('slow.json', botConfig(manyTools(service.url, 2_000)));
    const logged: string[] = [];
    // No thread starts, reads and checks a file of this size in 1 ms.
    await assert.rejects(
      readConfigInSlices(file, (_level, msg) => logged.push(msg), new Slicer(), 1),
      {
        message: `reading ${file} took over 1 ms on the config thread; it was stopped`,
      },
    );
    assert.deepEqual(logged, []);
  });

  it('refuses a FIFO at the path unread: the reload does not wait for a writer', async () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    // A writer that comes late and writes nothing: a read that waited for it would get an empty document.
    const writer = spawn('sh', ['-c', 'sleep 1; exec 3>"$0"', fifo], { stdio: 'ignore' });
    try {
      await assert.rejects(readConfigInSlices(fifo, silent), (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.message, `cannot read config file ${fifo}: not a regular file`);
        return true;
      });
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('refuses a device at the path unread (a link to /dev/zero never ends)', async () => {
    const link = join(dir, 'zero.json');
    symlinkSync('/dev/zero', link);
    await assert.rejects(readConfigInSlices(link, silent), {
      message: `cannot read config file ${link}: not a regular file`,
    });
  });

  it('answers calls while it reloads, then serves the new tools', async () => {
    const small = botConfig([tool('lookup', `${service.url}/health`, { inputSchema: { type: 'object' } })]);
    const file = write('gateway.json', small);
    const gateway = await startSilentGateway(small, { configPath: file });
    try {
      const session = await initializeSession(gateway.url);
      write('gateway.json', botConfig([...manyTools(service.url, 3_000), small.tools[0]]));
      let reloaded = false;
      const reload = gateway.reload().then(() => (reloaded = true));
      // Calls on the running config while the new one is read and built: each is answered before the reload ends.
      const answeredDuring: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await rawCall(gateway.url, session, 'lookup', {});
        assert.ok(res.result !== undefined, JSON.stringify(res));
        answeredDuring.push(!reloaded);
      }
      await reload;
      assert.deepEqual(answeredDuring, [true, true, true]);
      const res = await rawCall(gateway.url, session, 'tool_2999', { id_2999: 'X2999-0001' });
      assert.ok(res.result !== undefined, JSON.stringify(res));
    } finally {
      await gateway.close();
    }
  });
});
