import * as assert from 'node:assert/strict';
import { Gateway, Service } from '../../constructs';
import { providerSource } from '../../constructs/provider-source';
import { hashOf, newStack, synth } from './synth';

describe('providerSource', () => {
  it('keeps the short source for Terraform, and when no engine is named', () => {
    assert.equal(providerSource('kreuzwerker/docker', {}), 'kreuzwerker/docker');
    assert.equal(providerSource('kreuzwerker/docker', { TERRAFORM_BINARY_NAME: '' }), 'kreuzwerker/docker');
    assert.equal(providerSource('kreuzwerker/docker', { TERRAFORM_BINARY_NAME: 'terraform' }), 'kreuzwerker/docker');
    assert.equal(
      providerSource('kreuzwerker/docker', { TERRAFORM_BINARY_NAME: '/opt/bin/terraform-1.5' }),
      'kreuzwerker/docker',
    );
    // a name that merely starts with the letters is not OpenTofu
    assert.equal(providerSource('kreuzwerker/docker', { TERRAFORM_BINARY_NAME: 'tofurky' }), 'kreuzwerker/docker');
  });

  it('spells out the OpenTofu registry when cdktf runs OpenTofu, by name or by path', () => {
    for (const engine of ['tofu', '/usr/local/bin/tofu', 'tofu-1.10.10']) {
      assert.equal(
        providerSource('hashicorp/kubernetes', { TERRAFORM_BINARY_NAME: engine }),
        'registry.opentofu.org/hashicorp/kubernetes',
        engine,
      );
    }
  });

  it("is what a gateway's stack asks for, read from the environment cdktf synthesizes in", () => {
    const build = (): unknown => {
      const stack = newStack('desk');
      const health = new Service(stack, 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
      new Gateway(stack, 'agents', {
        services: [health],
        auth: { tokens: [{ id: 'ops', sha256: hashOf('ops-token') }] },
      });
      return synth(stack).terraform.required_providers.docker;
    };
    const before = process.env.TERRAFORM_BINARY_NAME;
    try {
      process.env.TERRAFORM_BINARY_NAME = 'tofu';
      assert.deepEqual(build(), { source: 'registry.opentofu.org/kreuzwerker/docker', version: '~> 4.6' });
      delete process.env.TERRAFORM_BINARY_NAME;
      assert.deepEqual(build(), { source: 'kreuzwerker/docker', version: '~> 4.6' });
    } finally {
      if (before === undefined) delete process.env.TERRAFORM_BINARY_NAME;
      else process.env.TERRAFORM_BINARY_NAME = before;
    }
  });
});
