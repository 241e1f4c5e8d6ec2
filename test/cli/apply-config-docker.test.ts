/**
 * `apply-config --docker`: what a single-container gateway's deploy runs on the deploying machine. A stand-in
 * `docker` on PATH records every call and what it reads on stdin, so the test sees exactly what reaches the
 * Docker CLI; the real engine runs it in the deploy test (test/deploy).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DOCKER_HANDOFF_KEY, HANDOFF_IMAGE_ENV, type DockerHandoff } from '../../src/config';
import { installStandIn, standInCalls } from '../helpers/stand-in-tool';
import { tempDir } from '../helpers/temp-dir';

const CLI = path.join(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/** A `docker` that appends its arguments to calls.jsonl, keeps `cp`'s stdin as archive.tar, and answers `start`. */
const FAKE_DOCKER = `#!/usr/bin/env node
const fs = require('fs');
const dir = process.env.FAKE_DOCKER_DIR;
const args = process.argv.slice(2);
fs.appendFileSync(dir + '/calls.jsonl', JSON.stringify(args) + '\\n');
const env = Object.keys(process.env).filter((k) => k.startsWith('CDKTF_MCP_GATEWAY_HANDOFF') || k === 'DOCKER_HOST');
fs.appendFileSync(dir + '/env.jsonl', JSON.stringify(env.map((k) => k + '=' + process.env[k])) + '\\n');
if (args[0] === 'cp') fs.writeFileSync(dir + '/archive.tar', fs.readFileSync(0));
if (args[0] === process.env.FAKE_DOCKER_FAIL) {
  process.stderr.write('Error response from daemon: no such image\\n');
  process.exit(1);
}
if (args[0] === 'start') {
  process.stderr.write(process.env.FAKE_DOCKER_START_OUTPUT ?? '');
  process.exit(Number(process.env.FAKE_DOCKER_START_EXIT ?? 0));
}
`;

const HANDOFF: DockerHandoff = {
  gateway: 'support',
  container: 'desk-support-config-0123456789ab',
  user: '1000',
  labels: { 'cdktf-mcp-gateway.config': 'support' },
  env: ['CDKTF_MCP_GATEWAY_BUILD=img:tag'],
  volumes: ['desk-support-state:/var/lib/cdktf-mcp-gateway'],
  command: ['apply-config', '--config', '/etc/cdktf-mcp-gateway/gateway.json', '--quiet'],
  files: [
    {
      path: '/etc/cdktf-mcp-gateway/gateway.json',
      content_base64: Buffer.from('{"version":1}\n').toString('base64'),
      mode: '0444',
      uid: 0,
      gid: 0,
    },
    { path: '/run/secrets/CRM_API_KEY', env: 'CDKTF_MCP_GATEWAY_HANDOFF_FILE_0', mode: '0400', uid: 1000, gid: 1000 },
  ],
};

describe('apply-config --docker (the deploy hands a single container its config through the docker CLI)', () => {
  let dir: string;
  let toolPath: string;

  beforeEach(() => {
    dir = tempDir('apply-docker-');
    toolPath = installStandIn(dir, 'docker', FAKE_DOCKER);
    const stack = { resource: { terraform_data: { apply: { '//': { [DOCKER_HANDOFF_KEY]: HANDOFF } } } } };
    writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(stack));
  });

  function run(env: Record<string, string | undefined>, container = HANDOFF.container) {
    const result = spawnSync(process.execPath, [CLI, 'apply-config', '--docker', container], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: toolPath,
        FAKE_DOCKER_DIR: dir,
        [HANDOFF_IMAGE_ENV]: 'sha256:abc',
        CDKTF_MCP_GATEWAY_HANDOFF_FILE_0: 's3cret\n',
        ...env,
      },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls: standInCalls(dir) };
  }

  it('creates the one-shot container with no network, copies the files in with their modes and owners, runs it and removes it; prints nothing when it succeeds', () => {
    const { status, stdout, stderr, calls } = run({});
    assert.equal(status, 0, stderr);
    assert.equal(stdout + stderr, '');
    assert.deepEqual(calls, [
      ['rm', '--force', '--volumes', HANDOFF.container],
      [
        'create',
        '--name',
        HANDOFF.container,
        '--network',
        'none',
        '--user',
        '1000',
        '--label',
        'cdktf-mcp-gateway.config=support',
        '--env',
        'CDKTF_MCP_GATEWAY_BUILD=img:tag',
        '--volume',
        'desk-support-state:/var/lib/cdktf-mcp-gateway',
        'sha256:abc',
        ...HANDOFF.command,
      ],
      ['cp', '-', `${HANDOFF.container}:/`],
      ['start', '--attach', HANDOFF.container],
      ['rm', '--force', '--volumes', HANDOFF.container],
    ]);
    // the secret travels in the archive on docker's stdin, never in its arguments or environment; the engine is
    // the provider's default when neither the stack nor the deploy names one
    assert.doesNotMatch(JSON.stringify(calls), /s3cret/);
    const envs = readFileSync(path.join(dir, 'env.jsonl'), 'utf8').trim().split('\n');
    assert.deepEqual(new Set(envs), new Set([JSON.stringify(['DOCKER_HOST=unix:///var/run/docker.sock'])]));
    const listing = spawnSync('tar', ['-tvf', path.join(dir, 'archive.tar'), '--numeric-owner'], { encoding: 'utf8' });
    assert.match(listing.stdout, /^-r--r--r-- 0\/0 +14 .* etc\/cdktf-mcp-gateway\/gateway\.json$/m);
    assert.match(listing.stdout, /^-r-------- 1000\/1000 +7 .* run\/secrets\/CRM_API_KEY$/m);
    const out = path.join(dir, 'out');
    mkdirSync(out);
    assert.equal(spawnSync('tar', ['-xf', path.join(dir, 'archive.tar'), '-C', out]).status, 0);
    assert.equal(readFileSync(path.join(out, 'run/secrets/CRM_API_KEY'), 'utf8'), 's3cret\n');
    assert.equal(statSync(path.join(out, 'etc/cdktf-mcp-gateway/gateway.json')).mode & 0o777, 0o444);
  });

  it("fails with the gateway's own reason, in one line after the gateway's name, and still removes the container", () => {
    const { status, stderr, calls } = run({
      FAKE_DOCKER_START_OUTPUT: 'cdktf-mcp-gateway: secret CRM_API_KEY is empty\n',
      FAKE_DOCKER_START_EXIT: '1',
    });
    assert.equal(status, 1);
    assert.equal(stderr, "Gateway 'support' cannot start: cdktf-mcp-gateway: secret CRM_API_KEY is empty\n");
    assert.deepEqual(calls.at(-1), ['rm', '--force', '--volumes', HANDOFF.container]);
  });

  it('names the docker step that failed before the container ran, apart from a refusal', () => {
    const { status, stderr, calls } = run({ FAKE_DOCKER_FAIL: 'create' });
    assert.equal(status, 1);
    assert.equal(
      stderr,
      "Gateway 'support': its config hand-over failed at docker create: Error response from daemon: no such image\n",
    );
    assert.equal(calls.filter((c) => c[0] === 'start').length, 0);
  });

  it('refuses a hand-over someone edited into a shape it cannot run, saying what is wrong', () => {
    const edits: [(h: Record<string, unknown>) => void, string][] = [
      [(h) => delete h.files, 'files must be a list'],
      [(h) => (h.labels = null), 'labels must map to strings'],
      [(h) => ((h.files as Record<string, unknown>[])[0].mode = 'abc'), 'mode must be octal, such as 0444'],
      [(h) => ((h.files as Record<string, unknown>[])[1].uid = -1), 'uid and gid must be integers 0 to 2097151'],
      [(h) => delete (h.files as Record<string, unknown>[])[1].env, 'needs exactly one of content_base64 and env'],
      [
        (h) => ((h.files as Record<string, unknown>[])[0].content_base64 = 'not base64!'),
        'content_base64 is not base64',
      ],
    ];
    for (const [edit, problem] of edits) {
      const handoff = JSON.parse(JSON.stringify(HANDOFF)) as Record<string, unknown>;
      edit(handoff);
      const stack = { resource: { terraform_data: { apply: { '//': { [DOCKER_HANDOFF_KEY]: handoff } } } } };
      writeFileSync(path.join(dir, 'cdk.tf.json'), JSON.stringify(stack));
      const { status, stderr, calls } = run({});
      assert.equal(status, 1, problem);
      assert.match(stderr, new RegExp(`is malformed: .*${problem.replace(/[()]/g, '\\$&')}`), stderr);
      assert.equal(stderr.split('\n').length, 2, stderr);
      assert.deepEqual(calls, []);
    }
  });

  it('says what is missing: the docker CLI, the image, a secret, the hand-over', () => {
    const noDocker = spawnSync(process.execPath, [CLI, 'apply-config', '--docker', HANDOFF.container], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: path.join(dir, 'empty'), [HANDOFF_IMAGE_ENV]: 'sha256:abc', CDKTF_MCP_GATEWAY_HANDOFF_FILE_0: 'x' },
    });
    assert.equal(noDocker.status, 1);
    assert.match(noDocker.stderr, /the docker CLI, which is not on this PATH: install the Docker CLI/);
    assert.match(run({ [HANDOFF_IMAGE_ENV]: undefined }).stderr, /CDKTF_MCP_GATEWAY_HANDOFF_IMAGE is not set/);
    assert.match(
      run({ CDKTF_MCP_GATEWAY_HANDOFF_FILE_0: undefined }).stderr,
      /CDKTF_MCP_GATEWAY_HANDOFF_FILE_0 is not set \(the deploy passes \/run\/secrets\/CRM_API_KEY\)/,
    );
    const unknown = run({}, 'desk-other-config-0123456789ab');
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /cdk\.tf\.json describes no config hand-over named desk-other-config-0123456789ab/);
    assert.deepEqual(unknown.calls, []);
    assert.deepEqual(readdirSync(dir).includes('archive.tar'), false);
  });
});
