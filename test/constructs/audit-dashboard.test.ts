import * as assert from 'node:assert/strict';
import type { TerraformStack } from 'cdktf';
import { AuditDashboard, type AuditDashboardProps, Gateway, Service } from '../../constructs';
import { gatewayContainer, hashOf, type Json, newStack, resourcesOf, synth, thrown, warningsOf } from './synth';

const OPS = { tokens: [{ id: 'ops', sha256: hashOf('ops-token') }] };

function deskStack(props: Partial<AuditDashboardProps> = {}): { stack: TerraformStack; dashboard: AuditDashboard } {
  const stack = newStack('desk');
  const health = new Service(stack, 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
  const agents = new Gateway(stack, 'agents', { services: [health], auth: OPS, port: 8080 });
  const legacy = new Gateway(stack, 'legacy', { services: [health], auth: OPS, port: 8081 });
  const dashboard = new AuditDashboard(stack, 'audit', { gateways: [agents, legacy], auth: OPS, ...props });
  return { stack, dashboard };
}

function dashboardContainer(json: Json): Json {
  const found = resourcesOf(json, 'docker_container').find((c: Json) =>
    (c.labels ?? []).some((l: Json) => l.label === 'cdktf-mcp-gateway.dashboard'),
  );
  assert.ok(found, 'no dashboard container');
  return found;
}

describe('AuditDashboard', () => {
  describe('synthesis', () => {
    let json: Json;
    before(() => {
      json = synth(deskStack({ port: 9100 }).stack);
    });

    it('runs the gateway image with the dashboard command and its uploaded config', () => {
      const container = dashboardContainer(json);
      assert.deepEqual(container.command, ['dashboard', '--config', '/etc/cdktf-mcp-gateway/dashboard.json']);
      assert.equal(container.image, gatewayContainer(json, 'agents').image, 'the same docker_image as the gateways');
      assert.equal(resourcesOf(json, 'docker_image').length, 1);
      const upload = container.upload.find((u: Json) => u.file === '/etc/cdktf-mcp-gateway/dashboard.json');
      assert.deepEqual(JSON.parse(upload.content), {
        audit_dirs: ['/var/log/cdktf-mcp-gateway/agents', '/var/log/cdktf-mcp-gateway/legacy'],
        port: 8090,
        host: '0.0.0.0',
        auth: { tokens: [{ id: 'ops', sha256: hashOf('ops-token') }] },
        retention_ms: 604_800_000,
        flag: { min_refusals: 10, min_rate: 0.5 },
      });
    });

    it("mounts each gateway's audit volume read-only, one directory per gateway", () => {
      const container = dashboardContainer(json);
      const volumes = resourcesOf(json, 'docker_volume').map((v: Json) => v.name);
      // each gateway has its audit volume and its state volume (the generated session key); only the former is read
      assert.deepEqual(volumes, ['desk-agents-audit', 'desk-agents-state', 'desk-legacy-audit', 'desk-legacy-state']);
      assert.deepEqual(
        container.volumes.map((v: Json) => [v.container_path, v.read_only]),
        [
          ['/var/log/cdktf-mcp-gateway/agents', true],
          ['/var/log/cdktf-mcp-gateway/legacy', true],
        ],
      );
      const [agentsVolume, legacyVolume] = container.volumes.map((v: Json) => v.volume_name);
      assert.match(agentsVolume, /^\$\{docker_volume\.agents_AuditLog_[0-9A-F]+\.name\}$/);
      assert.match(legacyVolume, /^\$\{docker_volume\.legacy_AuditLog_[0-9A-F]+\.name\}$/);
    });

    it('publishes its port, probes its own /healthz, makes the deploy wait for it and outputs its URL', () => {
      const container = dashboardContainer(json);
      assert.deepEqual(container.ports, [{ internal: 8090, external: 9100 }]);
      assert.deepEqual(container.env, ['GATEWAY_HEALTH_URL=http://127.0.0.1:8090/healthz']);
      assert.deepEqual(container.healthcheck, {
        test: ['CMD', 'node', '/app/healthcheck.js'],
        interval: '5s',
        timeout: '5s',
        start_period: '30s',
        retries: 3,
      });
      assert.equal(container.wait, true);
      assert.equal(container.wait_timeout, 120);
      assert.equal(container.name, 'desk-audit');
      assert.equal(json.output.dashboard_audit_url.value, 'http://localhost:9100/');
    });

    it('asks for the kreuzwerker/docker release the uploads need', () => {
      assert.equal(json.terraform.required_providers.docker.version, '~> 4.6');
    });
  });

  it('publishes on hostIp only, and names it in the URL', () => {
    const { stack, dashboard } = deskStack({ port: 9100, hostIp: '127.0.0.1' });
    const json = synth(stack);
    assert.deepEqual(dashboardContainer(json).ports, [{ internal: 8090, external: 9100, ip: '127.0.0.1' }]);
    assert.equal(dashboard.hostIp, '127.0.0.1');
    assert.equal(dashboard.url, 'http://127.0.0.1:9100/');
    assert.equal(json.output.dashboard_audit_url.value, 'http://127.0.0.1:9100/');
  });

  it('refuses a hostIp that is not an IP address', () => {
    assert.equal(
      thrown(() => deskStack({ hostIp: 'localhost' })).message,
      "AuditDashboard 'audit': hostIp 'localhost' must be an IP address of the Docker host, e.g. '127.0.0.1' (this host only) or '10.0.0.5'",
    );
  });

  it("warns with auth: 'none'", () => {
    const { dashboard } = deskStack({ auth: 'none' });
    assert.match(warningsOf(dashboard).join('\n'), /has auth: 'none': anyone who can reach port 8090/);
  });

  it("warns of a token's scopes, which restrict nothing on the dashboard, and still takes the token", () => {
    const shared = { tokens: [{ ...OPS.tokens[0], scopes: ['crm:read'] }] };
    const { stack, dashboard } = deskStack({ auth: shared });
    assert.match(
      warningsOf(dashboard).join('\n'),
      /^AuditDashboard 'audit': auth\.tokens\[0\]\.scopes is ignored: the dashboard has no scopes, and token 'ops' reads the audit of every gateway it shows$/m,
    );
    const upload = dashboardContainer(synth(stack)).upload.find(
      (u: Json) => u.file === '/etc/cdktf-mcp-gateway/dashboard.json',
    );
    assert.deepEqual(JSON.parse(upload.content).auth, { tokens: [{ id: 'ops', sha256: hashOf('ops-token') }] });
    assert.deepEqual(
      warningsOf(deskStack().dashboard).filter((w) => w.includes('scopes')),
      [],
    );
  });

  it('refuses a gateway without an audit log, naming it and the fix', () => {
    const stack = newStack();
    const health = new Service(stack, 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
    const quiet = new Gateway(stack, 'quiet', { services: [health], auth: OPS, auditLog: false });
    assert.equal(
      thrown(() => new AuditDashboard(stack, 'audit', { gateways: [quiet], auth: OPS })).message,
      "AuditDashboard 'audit': gateway 'quiet' has auditLog: false, so there is nothing to read; turn its audit log on",
    );
  });

  it('refuses no gateways, a bad port, a bad token hash and a bad flag rule with the prop and the fix', () => {
    const stack = newStack();
    assert.equal(
      thrown(() => new AuditDashboard(stack, 'a', { gateways: [], auth: OPS })).message,
      "AuditDashboard 'a': 'gateways' must name at least one Gateway whose audit log it reads",
    );
    assert.match(thrown(() => deskStack({ port: 0 })).message, /port \(0\) must be an integer between 1 and 65535/);
    assert.match(
      thrown(() => deskStack({ auth: { tokens: [{ id: 'ops', sha256: 'secret' }] } })).message,
      /auth\.tokens\[0\]\.sha256 \(token 'ops'\) must be 64 hex characters/,
    );
    assert.doesNotMatch(
      thrown(() => deskStack({ auth: { tokens: [{ id: 'ops', sha256: 'secret' }] } })).message,
      /secret/,
    );
    assert.match(
      thrown(() => deskStack({ flag: { minRate: 2 } })).message,
      /flag\.minRate \(2\) must be a number from 0 to 1/,
    );
  });
});
