import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { startFakeService, type FakeService } from '../helpers/backend';
import { eventually } from '../helpers/eventually';
import { startSilentGateway } from '../helpers/in-process-gateway';
import { initializeSession } from '../helpers/mcp';
import { listedTools, reloadVersions } from '../helpers/reload-versions';
import { tempDir } from '../helpers/temp-dir';

describe('config reload triggers: SIGHUP and --watch', () => {
  let service: FakeService;
  let v1: GatewayConfig;
  let v2: GatewayConfig;

  before(async () => {
    service = await startFakeService();
    ({ v1, v2 } = reloadVersions(service.url));
  });
  after(() => service.close());

  it('reloads on SIGHUP when started from a file', async () => {
    const dir = tempDir('gw-sighup-');
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await startSilentGateway(v1, { configPath: file });
    try {
      writeFileSync(file, JSON.stringify(v2));
      process.kill(process.pid, 'SIGHUP');
      const session = await initializeSession(gateway.url);
      await eventually(async () => assert.deepEqual(await listedTools(gateway.url, session), ['lookup', 'health']));
    } finally {
      await gateway.close();
    }
  });

  it('reloads when the watched file changes', async () => {
    const dir = tempDir('gw-watch-');
    const file = join(dir, 'gateway.json');
    writeFileSync(file, JSON.stringify(v1));
    const gateway = await startSilentGateway(v1, { configPath: file, watch: true });
    try {
      writeFileSync(file, JSON.stringify(v2));
      const session = await initializeSession(gateway.url);
      await eventually(async () => assert.deepEqual(await listedTools(gateway.url, session), ['lookup', 'health']), {
        timeoutMs: 3000,
      });
    } finally {
      await gateway.close();
    }
  });

  it('reloads when the file is a link into another directory and its target is replaced there', async () => {
    // gateway.json -> ../releases/current.json, current.json replaced by rename: nothing happens in gateway.json's directory
    const root = tempDir('gw-link-target-');
    mkdirSync(join(root, 'etc'));
    mkdirSync(join(root, 'releases'));
    writeFileSync(join(root, 'releases', 'current.json'), JSON.stringify(v1));
    symlinkSync('../releases/current.json', join(root, 'etc', 'gateway.json'));
    const gateway = await startSilentGateway(v1, { configPath: join(root, 'etc', 'gateway.json'), watch: true });
    try {
      const session = await initializeSession(gateway.url);
      writeFileSync(join(root, 'releases', 'current.json.tmp'), JSON.stringify(v2));
      renameSync(join(root, 'releases', 'current.json.tmp'), join(root, 'releases', 'current.json'));
      await eventually(async () => assert.deepEqual(await listedTools(gateway.url, session), ['lookup', 'health']), {
        timeoutMs: 4000,
      });
    } finally {
      await gateway.close();
    }
  });

  it('reloads when a Kubernetes volume swaps its ..data link (the file itself is a link that never changes)', async () => {
    // the layout the kubelet keeps: gateway.json -> ..data/gateway.json, ..data -> ..<timestamp>/, swapped by rename
    const dir = tempDir('gw-kubelet-');
    const version = (name: string, config: GatewayConfig): void => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'gateway.json'), JSON.stringify(config));
    };
    version('..v1', v1);
    symlinkSync('..v1', join(dir, '..data'));
    symlinkSync('..data/gateway.json', join(dir, 'gateway.json'));
    const file = join(dir, 'gateway.json');
    const gateway = await startSilentGateway(v1, { configPath: file, watch: true });
    try {
      const session = await initializeSession(gateway.url);
      version('..v2', v2);
      symlinkSync('..v2', join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      await eventually(async () => assert.deepEqual(await listedTools(gateway.url, session), ['lookup', 'health']), {
        timeoutMs: 3000,
      });
    } finally {
      await gateway.close();
    }
  });
});
