import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformStack, TerraformVariable } from 'cdktf';
import { Gateway, GatewayProps, Manifest, ManifestError, Secret, Service } from '../../constructs';
import { DOCKER_HANDOFF_KEY, handoffFileText, uploadedText, type DockerHandoff } from '../../src/config';
import { configOf as configOf2 } from './synth';
import { handoffSecret, hashOf, Json, newStack, resourcesOf, synth, thrown } from './synth';

const auth = { tokens: [{ id: 'support-bot', sha256: hashOf('test-token-1') }] };

/** A stack with one service and a replicated gateway `support` (props override the defaults). */
function replicatedStack(
  props: Partial<GatewayProps> = {},
  withKey = true,
): { stack: TerraformStack; gateway: Gateway } {
  const stack = newStack('desk');
  const getCustomer = new Service(stack, 'get_customer', {
    description: 'Look up a customer',
    endpoint: { url: 'http://crm.internal:8080/customers/{customer_id}', method: 'GET' },
    input: { customer_id: { type: 'string', required: true } },
  });
  const sessionKey = withKey
    ? new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true }).stringValue
    : undefined;
  const gateway = new Gateway(stack, 'support', {
    services: [getCustomer],
    auth,
    replicas: 2,
    sessionKey,
    port: 9090,
    ...props,
  });
  return { stack, gateway };
}

function only(json: Json, type: string): Json {
  // terraform_data: the secrets revision (the publish-mode marker is checked on its own)
  const all =
    type === 'terraform_data'
      ? Object.entries(json.resource.terraform_data as Record<string, Json>)
          .filter(([id]) => id.includes('_SecretsRevision_'))
          .map(([, r]) => r)
      : resourcesOf(json, type);
  assert.equal(all.length, 1, `${all.length} ${type}`);
  return all[0];
}

/** The secrets revision's tag, as synthesized into Docker object names. */
/** The preflight check: its terraform_data and the one-shot container it runs. */
function preflightOf(json: Json): { resource: Json; handoff: DockerHandoff } {
  const [run, ...more] = resourcesOf(json, 'terraform_data').filter(
    (r) => r['//']?.[DOCKER_HANDOFF_KEY]?.labels?.['cdktf-mcp-gateway.preflight'],
  );
  assert.equal(more.length, 0);
  return { resource: run, handoff: run['//'][DOCKER_HANDOFF_KEY] };
}

const REVISION = '${substr(replace(terraform_data.support_SecretsRevision_499564A2.id, "-", ""), 0, 8)}';

/** The config a docker_config carries (sensitive base64), decoded. */
function configOf(json: Json): Json {
  return JSON.parse(uploadedText({ content_base64: only(json, 'docker_config').data })!);
}

describe('Gateway with replicas (docker_service)', () => {
  describe('synthesis', () => {
    let json: Json;
    before(() => {
      json = synth(replicatedStack().stack);
    });

    it('makes a docker_service, not a gateway docker_container, running the gateway image with that many replicas', () => {
      const service = only(json, 'docker_service');
      assert.equal(service.name, 'desk-support');
      assert.deepEqual(service.mode, { replicated: { replicas: 2 } });
      assert.equal(service.task_spec.container_spec.image, '${docker_image.McpGatewayImage_FD6D9FCA.image_id}');
      assert.equal(resourcesOf(json, 'docker_image').length, 1);
      // no container: the preflight check is a one-shot run the deploy starts, which the service waits for
      assert.deepEqual(resourcesOf(json, 'docker_container'), []);
      const { resource: run, handoff } = preflightOf(json);
      assert.deepEqual(handoff.labels, { 'cdktf-mcp-gateway.preflight': 'support' });
      assert.deepEqual(handoff.command, ['serve', '--config', '/etc/cdktf-mcp-gateway/gateway.json', '--check']);
      assert.deepEqual(handoff.volumes, []);
      assert.match(handoff.container, /^desk-support-preflight-[0-9a-f]{12}$/);
      assert.equal(
        run.provisioner[0]['local-exec'].environment.CDKTF_MCP_GATEWAY_HANDOFF_IMAGE,
        service.task_spec.container_spec.image,
      );
      // the values themselves (a plan shows "(sensitive value)"): the revision naming the Docker secrets moves only
      // once the check passed them, so a refused value names no new secret
      assert.deepEqual(run.triggers_replace, {
        files: handoff.container.slice(-12),
        secrets: { '/run/secrets/cdktf-mcp-gateway-session-key': '${var.session_key}\n' },
      });
      assert.deepEqual(service.depends_on, ['terraform_data.support_Preflight_72AE8286']);
      const [revisionId] = Object.keys(json.resource.terraform_data).filter((id) =>
        id.startsWith('support_SecretsRevision_'),
      );
      assert.deepEqual(json.resource.terraform_data[revisionId].depends_on, [
        'terraform_data.support_Preflight_72AE8286',
      ]);
    });

    it('runs the preflight check on the config and the session key the replicas get', () => {
      const { handoff } = preflightOf(json);
      assert.deepEqual(
        handoff.files.map((f) => f.path),
        ['/etc/cdktf-mcp-gateway/gateway.json', '/run/secrets/cdktf-mcp-gateway-session-key'],
      );
      assert.deepEqual(JSON.parse(handoffFileText(handoff, '/etc/cdktf-mcp-gateway/gateway.json')!), configOf(json));
      assert.deepEqual(handoffSecret(json, 'support', '/run/secrets/cdktf-mcp-gateway-session-key'), {
        path: '/run/secrets/cdktf-mcp-gateway-session-key',
        content: '${var.session_key}\n',
        mode: '0400',
        uid: 1000,
        gid: 1000,
      });
    });

    it('runs each replica in the host network, binding the published port itself (shared through SO_REUSEPORT)', () => {
      const service = only(json, 'docker_service');
      assert.deepEqual(service.task_spec.networks_advanced, [{ name: 'host' }]);
      // the provider reads a task's network back as a generated swarm id: left out of the diff, and a change of
      // publish mode replaces the service through a marker instead
      const [markerId] = Object.keys(json.resource.terraform_data).filter((id) =>
        id.startsWith('support_PublishMode_'),
      );
      assert.deepEqual(json.resource.terraform_data[markerId], { input: { publish_mode: 'host-network' } });
      assert.deepEqual(service.lifecycle, {
        ignore_changes: ['task_spec[0].networks_advanced', 'task_spec[0].container_spec[0].configs'],
        replace_triggered_by: [`terraform_data.${markerId}`],
      });
      assert.deepEqual(service.task_spec.container_spec.args, [
        'serve',
        '--config',
        '/etc/cdktf-mcp-gateway/gateway.json',
        '--port',
        '9090',
      ]);
      assert.equal(service.endpoint_spec, undefined);
      assert.deepEqual(resourcesOf(json, 'docker_network'), []);
    });

    it('has each host-network replica bind hostIp when it is set', () => {
      const service = only(synth(replicatedStack({ hostIp: '127.0.0.1' }).stack), 'docker_service');
      assert.deepEqual(service.task_spec.container_spec.args, [
        'serve',
        '--config',
        '/etc/cdktf-mcp-gateway/gateway.json',
        '--port',
        '9090',
        '--host',
        '127.0.0.1',
      ]);
    });

    it('mounts the config from a docker_config named after its content hash, created before the old one goes', () => {
      const config = only(json, 'docker_config');
      assert.match(config.name, /^desk-support-[0-9a-f]{12}$/);
      assert.deepEqual(config.lifecycle, { create_before_destroy: true });
      const [mount] = only(json, 'docker_service').task_spec.container_spec.configs;
      assert.deepEqual(mount, {
        config_id: '${docker_config.support_Config_BA7A5CE9.id}',
        config_name: '${docker_config.support_Config_BA7A5CE9.name}',
        file_name: '/etc/cdktf-mcp-gateway/gateway.json',
        file_mode: 0o444,
      });
      const doc = configOf(json);
      assert.equal(doc.gateway.name, 'support');
      assert.equal(doc.gateway.session_key_file, '/run/secrets/cdktf-mcp-gateway-session-key');
      assert.equal(doc.tools[0].name, 'get_customer');
    });

    it('creates a new config only once the check passed, and moves the running service to it with the docker CLI', () => {
      const config = only(json, 'docker_config');
      assert.deepEqual(config.depends_on, ['terraform_data.support_Preflight_72AE8286']);
      // the service keeps the config it mounts: the roll changes it, so a plan shows the config's name only
      assert.ok(
        only(json, 'docker_service').lifecycle.ignore_changes.includes('task_spec[0].container_spec[0].configs'),
      );
      const [rollId] = Object.keys(json.resource.terraform_data).filter((id) => id.startsWith('support_ConfigRoll_'));
      const roll = json.resource.terraform_data[rollId];
      const [serviceId] = Object.keys(json.resource.docker_service);
      assert.deepEqual(roll.triggers_replace, { config: '${docker_config.support_Config_BA7A5CE9.name}' });
      assert.deepEqual(roll.depends_on, [`docker_service.${serviceId}`]);
      const exec = roll.provisioner[0]['local-exec'];
      assert.deepEqual(exec.interpreter.slice(0, 1), ['node']);
      assert.match(exec.interpreter[1], /dist\/src\/cli\/main\.js$/);
      assert.deepEqual(exec.interpreter.slice(2), [
        'apply-config',
        '--target',
        '/etc/cdktf-mcp-gateway/gateway.json',
        '--config-name',
        '${docker_config.support_Config_BA7A5CE9.name}',
        '--swarm',
      ]);
      assert.equal(exec.command, `\${docker_service.${serviceId}.name}`);
      // the reviewer's summary records a new config only once the service serves it
      assert.equal(json.output.gateway_support_config.value.handover, `\${terraform_data.${rollId}.id}`);
      assert.equal(exec.quiet, true);
      assert.deepEqual(exec.environment, {});
    });

    it('delivers the session key as a docker_secret from the sensitive variable, readable by the gateway user only', () => {
      const secret = only(json, 'docker_secret');
      assert.equal(secret.data, '${base64encode(var.session_key)}');
      // named after the secrets' revision (a terraform_data replaced when a value changes), never a hash of the value
      assert.equal(secret.name, `desk-support-session-key-${REVISION}`);
      assert.deepEqual(only(json, 'terraform_data').triggers_replace, {
        'cdktf-mcp-gateway-session-key': '${var.session_key}',
      });
      assert.doesNotMatch(JSON.stringify(json), /sha256\(/);
      assert.deepEqual(secret.lifecycle, { create_before_destroy: true });
      assert.equal(json.variable.session_key.sensitive, true);
      assert.deepEqual(only(json, 'docker_service').task_spec.container_spec.secrets, [
        {
          secret_id: '${docker_secret.support_SessionKey_C19D2864.id}',
          secret_name: '${docker_secret.support_SessionKey_C19D2864.name}',
          file_name: 'cdktf-mcp-gateway-session-key',
          file_uid: '1000',
          file_gid: '1000',
          file_mode: 0o400,
        },
      ]);
    });

    it('rolls updates one task at a time, new before old, health-gated, rolling back on failure', () => {
      const service = only(json, 'docker_service');
      // the deploy returns once the update converged
      assert.deepEqual(service.converge_config, { delay: '1s', timeout: '5m' });
      assert.deepEqual(service.update_config, {
        parallelism: 1,
        order: 'start-first',
        failure_action: 'rollback',
        monitor: '10s',
        delay: '0s',
        max_failure_ratio: '0',
      });
      assert.deepEqual(service.rollback_config, {
        parallelism: 1,
        order: 'start-first',
        failure_action: 'pause',
        monitor: '10s',
        delay: '0s',
      });
      const spec = service.task_spec.container_spec;
      assert.deepEqual(spec.healthcheck, {
        test: ['CMD', 'node', '/app/healthcheck.js'],
        interval: '3s',
        timeout: '3s',
        start_period: '10s',
        retries: 3,
      });
      assert.equal(spec.stop_signal, 'SIGTERM');
      // longer than the hand-over (keep-alive timeout + 1 s) plus the drain timeout (10 s)
      assert.equal(spec.stop_grace_period, '30s');
      assert.deepEqual(service.task_spec.restart_policy, { condition: 'any', delay: '2s', window: '30s' });
    });

    it('mounts the audit volume; each replica writes audit-<task slot>.jsonl', () => {
      const volume = only(json, 'docker_volume');
      assert.equal(volume.name, 'desk-support-audit');
      const spec = only(json, 'docker_service').task_spec.container_spec;
      assert.deepEqual(spec.mounts, [
        {
          type: 'volume',
          source: '${docker_volume.support_AuditLog_4E7CD409.name}',
          target: '/var/log/cdktf-mcp-gateway',
        },
      ]);
      assert.deepEqual(spec.env, {
        CDKTF_MCP_GATEWAY_AUDIT_LOG: '/var/log/cdktf-mcp-gateway/audit-{{.Task.Slot}}.jsonl',
      });
    });

    it('labels the service and its tasks with the gateway name and outputs the URL, as for a container', () => {
      const service = only(json, 'docker_service');
      assert.deepEqual(service.labels, [{ label: 'cdktf-mcp-gateway.gateway', value: 'support' }]);
      assert.deepEqual(service.task_spec.container_spec.labels, [
        { label: 'cdktf-mcp-gateway.gateway', value: 'support' },
      ]);
      assert.equal(json.output.gateway_support_url.value, 'http://localhost:9090/mcp');
    });
  });

  describe('options', () => {
    it('publishes through the ingress routing mesh with publishMode: ingress (the image keeps its port 8080)', () => {
      const json = synth(replicatedStack({ publishMode: 'ingress' }).stack);
      const service = only(json, 'docker_service');
      assert.deepEqual(service.endpoint_spec, {
        mode: 'vip',
        ports: [{ target_port: 8080, published_port: 9090, publish_mode: 'ingress', protocol: 'tcp' }],
      });
      assert.equal(service.task_spec.networks_advanced, undefined);
      assert.equal(json.data, undefined);
      assert.equal(service.task_spec.container_spec.args, undefined);
    });

    it('names the per-slot audit file after a configured auditLog.path', () => {
      const json = synth(replicatedStack({ auditLog: { path: '/var/log/cdktf-mcp-gateway/calls.log' } }).stack);
      assert.deepEqual(only(json, 'docker_service').task_spec.container_spec.env, {
        CDKTF_MCP_GATEWAY_AUDIT_LOG: '/var/log/cdktf-mcp-gateway/calls-{{.Task.Slot}}.log',
      });
    });

    it('has no volume, mount or audit variable with the audit log off', () => {
      const json = synth(replicatedStack({ auditLog: false }).stack);
      assert.deepEqual(resourcesOf(json, 'docker_volume'), []);
      const spec = only(json, 'docker_service').task_spec.container_spec;
      assert.equal(spec.mounts, undefined);
      assert.equal(spec.env, undefined);
    });

    it('runs one replica without a session key (no secret, no session_key_file)', () => {
      const json = synth(replicatedStack({ replicas: 1 }, false).stack);
      assert.deepEqual(only(json, 'docker_service').mode, { replicated: { replicas: 1 } });
      assert.deepEqual(resourcesOf(json, 'docker_secret'), []);
      assert.equal(configOf(json).gateway.session_key_file, undefined);
    });

    it("toggling validateInput changes the config content and its name, the preflight's name, and nothing else", () => {
      const on = synth(replicatedStack({ validateInput: true }).stack);
      const off = synth(replicatedStack({ validateInput: false }).stack);
      const [configOn, configOff] = [only(on, 'docker_config'), only(off, 'docker_config')];
      assert.notEqual(configOn.name, configOff.name);
      assert.notEqual(configOn.data, configOff.data);
      assert.deepEqual({ ...configOf(on), gateway: { ...configOf(on).gateway, validate_input: false } }, configOf(off));
      const [preflightOn, preflightOff] = [preflightOf(on), preflightOf(off)];
      assert.notEqual(preflightOn.handoff.container, preflightOff.handoff.container);
      // the preflight checks the very config the replicas get
      const checked = (p: typeof preflightOff) => handoffFileText(p.handoff, '/etc/cdktf-mcp-gateway/gateway.json')!;
      assert.deepEqual(JSON.parse(checked(preflightOff)), configOf(off));
      // the plan shows the field itself, in the summary
      const summary = (json: Json) => json.output.gateway_support_config;
      assert.deepEqual([summary(on).value.validate_input, summary(off).value.validate_input], [true, false]);
      // everything else in the stack is byte for byte the same (the service refers to the config by reference)
      const inJson = (text: string) => JSON.stringify(text).slice(1, -1);
      const rest = (json: Json, config: Json, preflight: ReturnType<typeof preflightOf>) =>
        JSON.stringify(json)
          .split(inJson(config.name))
          .join('NAME')
          .split(inJson(config.data))
          .join('DATA')
          .split(inJson(preflight.handoff.container))
          .join('PREFLIGHT')
          .split(inJson(preflight.handoff.container.slice(-12)))
          .join('DIGEST')
          .split(inJson(preflight.handoff.files[0].content_base64!))
          .join('CONFIG')
          .split(JSON.stringify(summary(json)))
          .join('SUMMARY');
      assert.equal(rest(on, configOn, preflightOn), rest(off, configOff, preflightOff));
    });
  });

  describe('checks', () => {
    const key = (stack: TerraformStack) =>
      new TerraformVariable(stack, 'k', { type: 'string', sensitive: true }).stringValue;
    const make = (props: Partial<GatewayProps>) => () => {
      const stack = newStack('desk');
      const svc = new Service(stack, 's', { endpoint: { url: 'http://crm.internal/x', method: 'GET' } });
      return new Gateway(stack, 'support', { services: [svc], auth, sessionKey: key(stack), ...props });
    };

    const badReplicas: [unknown, string][] = [
      [0, '0'],
      [-1, '-1'],
      [1.5, '1.5'],
      [Number.NaN, 'NaN'],
      [Infinity, 'Infinity'],
      ['2', "'2'"],
    ];
    for (const [bad, shown] of badReplicas) {
      it(`refuses replicas ${shown}`, () => {
        assert.equal(
          thrown(make({ replicas: bad as number })).message,
          `Gateway 'support': replicas (${shown}) must be an integer >= 1 (leave it out for one docker_container)`,
        );
      });
    }

    it('requires a session key for more than one replica, saying how to make one', () => {
      const stack = newStack('desk');
      const svc = new Service(stack, 's', { endpoint: { url: 'http://crm.internal/x', method: 'GET' } });
      assert.equal(
        thrown(() => new Gateway(stack, 'support', { services: [svc], auth, replicas: 3 })).message,
        "Gateway 'support': replicas: 3 needs 'sessionKey', shared by the replicas so that any of them serves any session: " +
          "e.g. sessionKey: new TerraformVariable(this, 'session_key', { type: 'string', sensitive: true }).stringValue, " +
          'set with TF_VAR_session_key=$(openssl rand -base64 32)',
      );
    });

    it('refuses a literal session key without echoing it', () => {
      const message = thrown(
        make({ replicas: 2, sessionKey: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==' }),
      ).message;
      assert.equal(
        message,
        "Gateway 'support': sessionKey must be a reference to a sensitive value, not a literal (a literal would be written into " +
          "cdk.tf.json): e.g. new TerraformVariable(this, 'session_key', { type: 'string', sensitive: true }).stringValue",
      );
    });

    it('accepts sessionKey without replicas: an uploaded secret file of the container, no generated key', () => {
      const gateway = make({})();
      const json = synth(TerraformStack.of(gateway));
      assert.deepEqual(resourcesOf(json, 'docker_service'), []);
      assert.deepEqual(resourcesOf(json, 'docker_secret'), []);
      const container = resourcesOf(json, 'docker_container').find((c: Json) =>
        c.labels.some((l: Json) => l.label === 'cdktf-mcp-gateway.gateway'),
      );
      const config = configOf2(json, 'support');
      assert.equal(config.gateway.session_key_file, '/run/secrets/cdktf-mcp-gateway-session-key');
      assert.equal(config.gateway.session_key_store, undefined);
      assert.deepEqual(container.upload, [
        {
          file: '/run/secrets/cdktf-mcp-gateway-session-key',
          content: '${var.k}\n',
          permissions: '0400',
          owner: '1000',
          group: '1000',
        },
      ]);
      assert.equal(container.env[0], 'CDKTF_MCP_GATEWAY_SECRETS_DIR=/var/lib/cdktf-mcp-gateway/secrets');
      // the state volume holds the config the gateway serves (no generated key: the key is given)
      assert.deepEqual(
        container.volumes.map((v: Json) => v.container_path),
        ['/var/log/cdktf-mcp-gateway', '/var/lib/cdktf-mcp-gateway'],
      );
      assert.deepEqual(
        resourcesOf(json, 'docker_volume').map((v: Json) => v.name),
        ['desk-support-audit', 'desk-support-state'],
      );
    });

    it('refuses publishMode without replicas (container-only gateway)', () => {
      assert.equal(
        thrown(make({ sessionKey: undefined, publishMode: 'ingress' })).message,
        "Gateway 'support': publishMode applies to replicas only: set 'replicas', or drop 'publishMode'",
      );
    });

    it("refuses hostIp with publishMode 'ingress', which publishes on every interface", () => {
      assert.equal(
        thrown(make({ replicas: 2, publishMode: 'ingress', hostIp: '127.0.0.1' })).message,
        "Gateway 'support': hostIp ('127.0.0.1') cannot apply to publishMode 'ingress': Swarm's routing mesh publishes " +
          "the port on every interface of every node; use publishMode 'host-network' (each replica binds hostIp), or drop hostIp",
      );
    });

    it('refuses an unknown publishMode', () => {
      assert.equal(
        thrown(make({ replicas: 2, publishMode: 'bridge' as 'ingress' })).message,
        "Gateway 'support': publishMode 'bridge' is not supported: expected one of host-network, ingress",
      );
    });

    it('refuses a service whose backend container would sit on the bridge network a Swarm service cannot join', () => {
      const stack = newStack('desk');
      const crm = new Service(stack, 'crm', {
        endpoint: { url: 'http://crm:8080/x', method: 'GET' },
        container: { image: 'acme/crm:1', port: 8080 },
      });
      new Gateway(stack, 'support', { services: [crm], auth, replicas: 2, sessionKey: key(stack) });
      assert.throws(
        () => synth(stack),
        (err: Error) =>
          err.message.includes(
            "Gateway 'support' has replicas, but service 'crm' deploys its backend as a docker_container on the gateway's bridge " +
              "network, which a Swarm service cannot join: deploy the backend elsewhere and drop its 'container' (point " +
              "endpoint.url at it), or drop 'replicas'",
          ),
      );
    });
  });
});

describe('Manifest: replicas, session_key, publish_mode', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-replicas-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function manifest(gatewayLines: string): TerraformStack {
    const file = path.join(dir, 'm.yaml');
    fs.writeFileSync(
      file,
      `services:
  get_customer:
    endpoint: { url: "http://crm.internal/customers/{id}", method: GET }
    input: { id: { type: string, required: true } }
gateways:
  support:
    services: [get_customer]
    auth: none
${gatewayLines}`,
    );
    const stack = newStack('desk');
    new Manifest(stack, 'm', { path: file });
    return stack;
  }

  it('declares a replicated gateway whose session key is a sensitive variable created by the manifest', () => {
    const json = synth(
      manifest('    replicas: 3\n    session_key: { variable: gw_session_key }\n    publish_mode: ingress\n'),
    );
    const service = only(json, 'docker_service');
    assert.deepEqual(service.mode, { replicated: { replicas: 3 } });
    assert.equal(service.endpoint_spec.ports[0].publish_mode, 'ingress');
    assert.equal(json.variable.gw_session_key.sensitive, true);
    assert.equal(json.variable.gw_session_key.type, 'string');
    assert.equal(only(json, 'docker_secret').data, '${base64encode(var.gw_session_key)}');
  });

  it("reports a missing session key at the gateway, with the manifest's way to set one", () => {
    const err = thrown(() => manifest('    replicas: 2\n')) as ManifestError;
    assert.ok(err instanceof ManifestError);
    assert.match(
      err.message,
      /^.*m\.yaml:9:15: gateways\.support: missing required key `session_key`: .*add session_key: \{ variable: NAME \}/,
    );
  });

  it('refuses a key written in the manifest, without echoing it, and bad replicas / publish_mode', () => {
    const err = thrown(() =>
      manifest('    replicas: 0\n    session_key: c2VjcmV0c2VjcmV0c2VjcmV0\n    publish_mode: bridge\n'),
    );
    assert.ok(!err.message.includes('c2VjcmV0'), err.message);
    const lines = err.message.split('\n').map((l) => l.replace(/^.*m\.yaml:/, ''));
    assert.deepEqual(lines, [
      '9:15: gateways.support.replicas: expected an integer >= 1',
      '10:18: gateways.support.session_key: expected { variable: NAME } naming a sensitive Terraform variable (set it with TF_VAR_NAME); never the key itself',
      '11:19: gateways.support.publish_mode: expected one of host-network, ingress',
    ]);
  });

  it('refuses a variable name Terraform would not accept', () => {
    const err = thrown(() => manifest('    replicas: 2\n    session_key: { variable: "1key" }\n'));
    assert.match(err.message, /gateways\.support\.session_key\.variable: expected a Terraform variable name/);
  });

  it('delivers the secrets its services name as Docker secrets at /run/secrets/NAME, never in the environment or config', () => {
    const stack = newStack('desk');
    const apiKey = new TerraformVariable(stack, 'crm_api_key', { type: 'string', sensitive: true }).stringValue;
    const crm = new Service(stack, 'crm', {
      endpoint: {
        url: 'http://crm.internal:8080/x',
        method: 'GET',
        headers: { Authorization: Secret.env('CRM_API_KEY') },
      },
    });
    new Gateway(stack, 'support', {
      services: [crm],
      auth,
      replicas: 2,
      sessionKey: new TerraformVariable(stack, 'session_key', { type: 'string', sensitive: true }).stringValue,
      secrets: { CRM_API_KEY: apiKey },
    });
    const json = synth(stack);
    const spec = only(json, 'docker_service').task_spec.container_spec;
    const [apiKeyMount, sessionKeyMount] = spec.secrets;
    assert.deepEqual(
      [apiKeyMount.file_name, apiKeyMount.file_uid, apiKeyMount.file_mode],
      ['CRM_API_KEY', '1000', 0o400],
    );
    assert.equal(sessionKeyMount.file_mode, 0o400);
    assert.notEqual(sessionKeyMount.file_name, 'CRM_API_KEY');
    const secrets = resourcesOf(json, 'docker_secret');
    assert.equal(secrets.length, 2);
    // both named after one revision of the values, which holds them and is replaced when one changes
    assert.deepEqual(
      secrets.map((s: Json) => s.name),
      [`desk-support-secret-CRM_API_KEY-${REVISION}`, `desk-support-session-key-${REVISION}`],
    );
    assert.deepEqual(only(json, 'terraform_data').triggers_replace, {
      CRM_API_KEY: '${var.crm_api_key}',
      'cdktf-mcp-gateway-session-key': '${var.session_key}',
    });
    assert.ok(
      secrets.every((s: Json) => !String(s.name).includes('sha256(')),
      JSON.stringify(secrets),
    );
    assert.ok(
      secrets.some((s: Json) => String(s.data).includes('var.crm_api_key')),
      JSON.stringify(secrets),
    );
    assert.equal(spec.env?.CRM_API_KEY, undefined, 'not in the environment');
    assert.doesNotMatch(JSON.stringify(configOf(json)), /crm_api_key/);
  });
});
