import * as assert from 'node:assert/strict';
import { Testing, TerraformStack } from 'cdktf';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { Gateway, Service } from '../../constructs';
import { configApply, hashOf, synth, thrown } from './synth';

const auth = { tokens: [{ id: 'bot', sha256: hashOf('t') }] };

/** A stack with one gateway `g` and the providers given (no default provider of its own). */
function stackWith(providers: (stack: TerraformStack) => void, gatewayFirst = false): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'desk');
  if (!gatewayFirst) providers(stack);
  const health = new Service(stack, 'health', { endpoint: { url: 'http://crm:8080/health', method: 'GET' } });
  new Gateway(stack, 'g', { services: [health], auth });
  if (gatewayFirst) providers(stack);
  return stack;
}

const environment = (stack: TerraformStack) =>
  configApply(synth(stack), 'g').resource.provisioner[0]['local-exec'].environment as Record<string, string>;

describe('one-shot runs: the engine the docker CLI reaches', () => {
  it("takes the host and cert_path of the provider the gateway's resources use, declared before or after it", () => {
    for (const gatewayFirst of [false, true]) {
      const env = environment(
        stackWith((stack) => {
          new DockerProvider(stack, 'other', { alias: 'ci', host: 'ssh://deploy@ci.example' });
          new DockerProvider(stack, 'docker', { host: 'tcp://engine.example:2376', certPath: '/certs' });
        }, gatewayFirst),
      );
      assert.equal(env.DOCKER_HOST, 'tcp://engine.example:2376');
      assert.equal(env.DOCKER_CERT_PATH, '/certs');
      assert.equal(env.DOCKER_TLS_VERIFY, '1');
    }
  });

  it('passes no host when the provider names none: the deploy decides, as it does for the provider', () => {
    const env = environment(stackWith((stack) => new DockerProvider(stack, 'docker', {})));
    assert.deepEqual(Object.keys(env), ['CDKTF_MCP_GATEWAY_HANDOFF_IMAGE']);
  });

  it('refuses at synthesis a provider whose certificates or ssh options the docker CLI cannot take, saying what to use', () => {
    const stack = stackWith((s) => new DockerProvider(s, 'docker', { host: 'tcp://e:2376', certMaterial: 'PEM' }));
    assert.match(
      thrown(() => synth(stack)).message,
      /Gateway 'g': the Docker provider sets cert_material, which the docker CLI that hands the gateway its config cannot use: give the certificates as cert_path \(TLS\)/,
    );
  });
});
