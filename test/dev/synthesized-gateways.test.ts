import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Gateway, Service } from '../../constructs';
import { parseGatewayConfig } from '../../src/config';
import { startInProcessGateway } from '../helpers/in-process-gateway';
import { openSession } from '../helpers/mcp';
import { findSynthesizedGateways, gatewaysInStack } from '../../src/dev/synthesized-gateways';

const config = { version: 1, gateway: { name: 'agents', auth: 'none' }, tools: [] };

function container(name: string, external: unknown): Record<string, unknown> {
  return {
    name: `gw-${name}`,
    image: '${docker_image.gw.image_id}',
    labels: [{ label: 'cdktf-mcp-gateway.gateway', value: name }],
    ports: [{ internal: 8080, external }],
  };
}

/** The config hand-over a deploy runs for gateway `name`, as synthesis writes it under a `//` comment. */
function handoff(name: string, content: string = JSON.stringify(config)): Record<string, unknown> {
  const file = { path: '/etc/cdktf-mcp-gateway/gateway.json', mode: '0444', uid: 0, gid: 0 };
  return {
    '//': {
      cdktf_mcp_gateway_handoff: {
        gateway: name,
        container: `gw-${name}-config-0123456789ab`,
        files: [{ ...file, content_base64: Buffer.from(content).toString('base64') }],
      },
    },
  };
}

/** A stack document with gateway containers (name and published port) and their hand-overs. */
function stackDoc(...gateways: [name: string, external: unknown][]): Record<string, unknown> {
  return {
    resource: {
      docker_container: Object.fromEntries(gateways.map(([name, port]) => [`gw_${name}`, container(name, port)])),
      terraform_data: Object.fromEntries(gateways.map(([name]) => [`apply_${name}`, handoff(name)])),
    },
  };
}

describe('synthesized gateways', () => {
  it('finds labelled gateway containers with the config their hand-over copies and their host port', () => {
    const doc = stackDoc(['agents', 8080], ['legacy', 8081]);
    (doc.resource as { docker_container: Record<string, unknown> }).docker_container.backend = {
      name: 'api',
      image: 'x',
      labels: [{ label: 'app', value: 'api' }],
    };
    const found = gatewaysInStack('desk', doc);
    assert.deepEqual(
      found.map((g) => [g.name, g.stack, g.resource, g.hostPort]),
      [
        ['agents', 'desk', 'docker_container.gw_agents', 8080],
        ['legacy', 'desk', 'docker_container.gw_legacy', 8081],
      ],
    );
    assert.deepEqual(found[0].config, config);
  });

  it('refuses a gateway container without a hand-over of literal config content, naming stack and resource', () => {
    const doc = { resource: { docker_container: { gw: container('agents', 8080) } } };
    assert.throws(() => gatewaysInStack('desk', doc), {
      message: 'stack desk, docker_container.gw: no config hand-over of /etc/cdktf-mcp-gateway/gateway.json',
    });
  });

  it('refuses a host port that is a Terraform expression', () => {
    const doc = {
      resource: {
        docker_container: { gw: container('agents', '${var.port}') },
        terraform_data: { apply: handoff('agents') },
      },
    };
    assert.throws(() => gatewaysInStack('desk', doc), {
      message: 'stack desk, docker_container.gw: ports.external must be a literal port number, got "${var.port}"',
    });
  });

  it('reads every stack of an output directory, qualifies a gateway name two stacks use, and keeps only --stack ones', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-synth-test-'));
    try {
      for (const stack of ['b', 'a']) {
        fs.mkdirSync(path.join(out, 'stacks', stack), { recursive: true });
        fs.writeFileSync(
          path.join(out, 'stacks', stack, 'cdk.tf.json'),
          JSON.stringify(stackDoc([stack === 'a' ? 'agents' : 'legacy', 9000])),
        );
      }
      assert.deepEqual(
        findSynthesizedGateways(out).map((g) => `${g.stack}/${g.name}`),
        ['a/agents', 'b/legacy'],
      );
      fs.writeFileSync(path.join(out, 'stacks', 'b', 'cdk.tf.json'), JSON.stringify(stackDoc(['agents', 9000])));
      // two stacks reuse a gateway name, as the constructs allow: dev names them by stack
      assert.deepEqual(
        findSynthesizedGateways(out).map((g) => g.name),
        ['a/agents', 'b/agents'],
      );
      assert.deepEqual(
        findSynthesizedGateways(out, ['b']).map((g) => g.name),
        ['agents'],
      );
      assert.throws(() => findSynthesizedGateways(out, ['c']), {
        message: 'no stack named c in the synthesized app (stacks: a, b)',
      });
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('the contract dev reads from synthesized stacks', () => {
  it('finds the gateway, its config and its host port in what the constructs synthesize', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-contract-'));
    try {
      const app = new App({ outdir });
      const stack = new TerraformStack(app, 'desk');
      new DockerProvider(stack, 'docker', {});
      const health = new Service(stack, 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
      const gateway = new Gateway(stack, 'agents', { services: [health], auth: 'none', port: 9123 });
      app.synth();

      const [found, ...others] = findSynthesizedGateways(outdir);
      assert.equal(others.length, 0);
      assert.equal(found.name, 'agents');
      assert.equal(found.stack, 'desk');
      assert.equal(found.hostPort, 9123);
      assert.deepEqual(found.config, gateway.config());
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('serves ${ and %{ in a description and a pattern as declared, as the deployed container does', async () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-contract-'));
    const app = new App({ outdir });
    const stack = new TerraformStack(app, 'desk');
    new DockerProvider(stack, 'docker', {});
    const description = 'Prices in ${currency} and %{percent}';
    const pattern = '^(?:[^%]|%{2})*$';
    const quote = new Service(stack, 'quote', {
      description,
      endpoint: { url: 'http://api:8080/quote', method: 'POST' },
      input: { note: { type: 'string', description, pattern } },
    });
    new Gateway(stack, 'agents', { services: [quote], auth: 'none', port: 9124 });
    app.synth();
    const [found] = findSynthesizedGateways(outdir);
    fs.rmSync(outdir, { recursive: true, force: true });
    // what `dev` serves: the config it found, through a real gateway
    const gw = await startInProcessGateway(parseGatewayConfig(found.config));
    try {
      const session = await openSession(gw.url);
      const [tool] = (await session.request('tools/list')).message!.result.tools;
      assert.equal(tool.description, description);
      assert.equal(tool.inputSchema.properties.note.description, description);
      assert.equal(tool.inputSchema.properties.note.pattern, pattern);
    } finally {
      await gw.close();
    }
  });
});
