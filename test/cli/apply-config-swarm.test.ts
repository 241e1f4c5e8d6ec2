/**
 * `apply-config --swarm`: what a replicated gateway's deploy runs once a new config passed its check. A stand-in
 * `docker` on PATH answers as the engine would and records every call; the real Swarm runs it in the deploy
 * tests (test/deploy, test/multinode).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { installStandIn, standInCalls } from '../helpers/stand-in-tool';
import { tempDir } from '../helpers/temp-dir';

const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const TARGET = '/etc/cdktf-mcp-gateway/gateway.json';

/** A `docker` whose services are FAKE_SERVICES (name → configs, as `docker service inspect` prints them). */
const FAKE_DOCKER = `#!/usr/bin/env node
const fs = require('fs');
const dir = process.env.FAKE_DOCKER_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(dir + '/calls.jsonl', JSON.stringify(args) + '\\n');
// what a docker CLI with a broken config file prints on every call
process.stderr.write('WARNING: Error loading config file: /root/.docker/config.json: unexpected end of JSON input\\n');
const services = JSON.parse(process.env.FAKE_SERVICES);
if (args[0] === 'service' && args[1] === 'ls') {
  const prefix = args[args.indexOf('--filter') + 1].slice('name='.length);
  for (const name of Object.keys(services)) if (name.startsWith(prefix)) console.log(name);
} else if (args[0] === 'service' && args[1] === 'inspect' && args[3].includes('UpdateStatus')) {
  // FAKE_UPDATE_STATES: the states reported one after the other, the last one from then on
  const states = (process.env.FAKE_UPDATE_STATES || 'completed').split(',');
  const n = fs.existsSync(dir + '/polls') ? Number(fs.readFileSync(dir + '/polls', 'utf8')) : 0;
  fs.writeFileSync(dir + '/polls', String(n + 1));
  const state = states[Math.min(n, states.length - 1)];
  console.log(JSON.stringify({ State: state, Message: 'update ' + state }));
} else if (args[0] === 'service' && args[1] === 'inspect') {
  console.log(JSON.stringify(services[args[args.length - 1]]));
} else if (args[0] === 'service' && args[1] === 'update' && process.env.FAKE_UPDATE_OUTPUT) {
  process.stderr.write(process.env.FAKE_UPDATE_OUTPUT);
  process.exit(1);
}
`;

const mounted = (name: string) => [
  { File: { Name: TARGET, UID: '0', GID: '0', Mode: 292 }, ConfigID: 'id-' + name, ConfigName: name },
];

describe('apply-config --swarm (the deploy moves a replicated gateway to its new config)', () => {
  let dir: string;
  let toolPath: string;

  beforeEach(() => {
    dir = tempDir('apply-swarm-');
    toolPath = installStandIn(dir, 'docker', FAKE_DOCKER);
  });

  function run(services: Record<string, unknown>, env: Record<string, string> = {}, args?: string[]) {
    const argv = args ?? ['--target', TARGET, '--config-name', 'desk-support-new', '--swarm', 'desk-support'];
    const result = spawnSync(process.execPath, [CLI, 'apply-config', ...argv], {
      encoding: 'utf8',
      env: {
        PATH: toolPath,
        FAKE_DOCKER_DIR: dir,
        FAKE_SERVICES: JSON.stringify(services),
        ...env,
      },
    });
    return { status: result.status, out: result.stdout + result.stderr, calls: standInCalls(dir) };
  }

  it('removes the config mounted at the target and adds the new one in one rolling update, waiting for it; prints nothing', () => {
    const { status, out, calls } = run({ 'desk-support': mounted('desk-support-old'), 'desk-support-2': [] });
    assert.equal(status, 0, out);
    assert.equal(out, '');
    assert.deepEqual(calls.at(-2), [
      'service',
      'update',
      '--quiet',
      '--detach=false',
      '--config-rm',
      'desk-support-old',
      '--config-add',
      `source=desk-support-new,target=${TARGET},mode=0444`,
      'desk-support',
    ]);
  });

  it('does nothing when the service does not exist yet (it is created on the new config), even if a longer name does', () => {
    const { status, out, calls } = run({ 'desk-support-2': mounted('desk-support-old') });
    assert.equal(status, 0, out);
    assert.equal(calls.length, 1, JSON.stringify(calls));
  });

  it('updates nothing when the service already mounts the new config (a deploy run again), but waits while Swarm still rolls it', () => {
    const { status, out, calls } = run(
      { 'desk-support': mounted('desk-support-new') },
      { FAKE_UPDATE_STATES: 'updating,updating,completed' },
    );
    assert.equal(status, 0, out);
    assert.ok(!calls.some((c) => c[1] === 'update'), JSON.stringify(calls));
    assert.equal(calls.filter((c) => c.some((a) => a.includes('UpdateStatus'))).length, 3);
  });

  it('fails the deploy when Swarm rolled the update back, even if the CLI returned', () => {
    const { status, out } = run(
      { 'desk-support': mounted('desk-support-old') },
      { FAKE_UPDATE_STATES: 'rollback_completed' },
    );
    assert.equal(status, 1);
    assert.equal(
      out,
      'Gateway service desk-support did not move to config desk-support-new: its update ended rollback_completed ' +
        '(update rollback_completed)\n',
    );
  });

  it('refuses a name or a path that would add options to --config-add', () => {
    for (const argv of [
      ['--swarm', 'desk-support', '--target', TARGET, '--config-name', 'new,target=/etc/passwd'],
      ['--swarm', 'desk-support', '--target', `${TARGET},uid=0`, '--config-name', 'new'],
    ]) {
      const { status, out, calls } = run({}, {}, argv);
      assert.equal(status, 2, out);
      assert.match(out, /^cdktf-mcp-gateway: --(config-name|target): must be /);
      assert.deepEqual(calls, []);
    }
  });

  it("fails the deploy with the engine's reason when the rolling update fails", () => {
    const { status, out } = run(
      { 'desk-support': mounted('desk-support-old') },
      { FAKE_UPDATE_OUTPUT: 'rollback: update rolled back due to failure or early termination of task x\n' },
    );
    assert.equal(status, 1);
    // everything the engine printed, its warnings included: the reason is at the end
    assert.equal(
      out,
      'Gateway service desk-support did not move to config desk-support-new: WARNING: Error loading config file: ' +
        '/root/.docker/config.json: unexpected end of JSON input\n' +
        'rollback: update rolled back due to failure or early termination of task x\n',
    );
  });

  it('refuses a missing option with one usage line and exit code 2', () => {
    const { status, out, calls } = run({}, {}, ['--swarm', 'desk-support', '--target', TARGET]);
    assert.equal(status, 2);
    assert.equal(
      out,
      'cdktf-mcp-gateway: --config-name NAME is required (see: cdktf-mcp-gateway apply-config --help)\n',
    );
    assert.deepEqual(calls, []);
  });
});
