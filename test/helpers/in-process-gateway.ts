/**
 * `startGateway` in the test process, for tests that need a real listening gateway but not a separate process
 * (no signals, no CLI): {@link startInProcessGateway} audits to a temp file and keeps the log records;
 * {@link startSilentGateway} is `startGateway` itself, with test defaults, for tests of its options.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { type RunningGateway, silentLogger, startGateway, type StartGatewayOptions } from '../../src/gateway';

/** A running in-process gateway and its audit file. */
export interface InProcessGateway {
  readonly gateway: RunningGateway;
  readonly url: string;
  readonly auditLogPath: string;
  /** Log records the gateway wrote (instead of stdout), `{ level, msg, ...fields }`. */
  readonly logs: readonly Record<string, unknown>[];
  /** Closes the gateway (drain + audit flush), then removes the temp dir. */
  close(): Promise<void>;
}

/**
 * Starts a gateway on 127.0.0.1, port 0, auditing to a temp file.
 * @example
 * const gw = await startInProcessGateway(config);
 * after(() => gw.close());
 */
export async function startInProcessGateway(config: GatewayConfig): Promise<InProcessGateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-inproc-'));
  const auditLogPath = path.join(dir, 'audit.jsonl');
  const logs: Record<string, unknown>[] = [];
  const gateway = await startGateway({
    config,
    port: 0,
    host: '127.0.0.1',
    auditLogPath,
    // `logger` is the runtime's documented option beyond the shared contract; it keeps test output readable.
    logger: (level, msg, fields) => {
      logs.push({ level, msg, ...fields });
    },
  });
  let closed = false;
  return {
    gateway,
    url: gateway.url,
    auditLogPath,
    logs,
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await gateway.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * `startGateway` on 127.0.0.1, port 0, with a silent logger; `options` may set any other option (audit file,
 * config path, watch, …).
 * @example
 * const gateway = await startSilentGateway(botConfig(tools), { auditLogPath: file });
 * after(() => gateway.close());
 */
export function startSilentGateway(
  config: GatewayConfig,
  options: Partial<StartGatewayOptions> = {},
): Promise<RunningGateway> {
  return startGateway({ config, port: 0, host: '127.0.0.1', logger: silentLogger, ...options });
}
