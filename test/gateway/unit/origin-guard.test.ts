import assert from 'node:assert/strict';
import { createOriginGuard } from '../../../src/gateway/http/origin-guard';

/** The refusal message of a guard call, or `undefined` when it passes. */
function refusal(guard: ReturnType<typeof createOriginGuard>, host: string | undefined, origin?: string): string | undefined {
  try {
    guard(host, origin);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('Origin/Host defaults of a loopback-bound gateway', () => {
  for (const [listenHost, ownHost] of [['127.0.0.2', '127.0.0.2'], ['::1', '[::1]'], ['127.0.0.1', '127.0.0.1']] as const) {
    it(`accepts its own address when bound to ${listenHost}, with and without port, and the localhost names`, () => {
      const guard = createOriginGuard({ listenHost });
      for (const host of [ownHost, `${ownHost}:8080`, 'localhost', 'localhost:8080', '127.0.0.1:9', '[::1]:9']) {
        assert.equal(refusal(guard, host), undefined, host);
      }
      assert.equal(refusal(guard, `${ownHost}:8080`, `http://${ownHost}:8080`), undefined);
    });

    it(`refuses foreign hosts and origins when bound to ${listenHost}`, () => {
      const guard = createOriginGuard({ listenHost });
      for (const host of ['evil.example', 'evil.example:8080', '127.0.0.3:8080', '10.0.0.1', undefined]) {
        assert.equal(refusal(guard, host), 'Forbidden: Host not allowed', String(host));
      }
      assert.equal(refusal(guard, 'localhost', 'https://evil.example'), 'Forbidden: Origin not allowed');
      assert.equal(refusal(guard, 'localhost', 'http://127.0.0.3:8080'), 'Forbidden: Origin not allowed');
    });
  }

  it('keeps an explicit allowlist as written (the bound address is not added)', () => {
    const guard = createOriginGuard({ listenHost: '127.0.0.2', allowedHosts: ['gw.internal'] });
    assert.equal(refusal(guard, 'gw.internal:8080'), undefined);
    assert.equal(refusal(guard, '127.0.0.2:8080'), 'Forbidden: Host not allowed');
  });

  it('checks no Host on a gateway bound to all interfaces, and refuses any Origin', () => {
    const guard = createOriginGuard({ listenHost: '0.0.0.0' });
    assert.equal(refusal(guard, 'anything.example'), undefined);
    assert.equal(refusal(guard, 'anything.example', 'http://localhost'), 'Forbidden: Origin not allowed');
  });
});
