/**
 * A gateway started in process on a given port (an OAuth gateway's resource URL names its port), auditing to a
 * temp file and keeping its log records. Shared by the attack suite and the end-to-end tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GatewayConfig } from '../../src/config';
import { type RunningGateway, startGateway } from '../../src/gateway';

/** A running gateway, its audit file and its log records. */
export interface GatewayOnPort {
  readonly gateway: RunningGateway;
  readonly url: string;
  readonly auditLogPath: string;
  readonly logs: readonly Record<string, unknown>[];
  close(): Promise<void>;
}

/** Starts `config` on 127.0.0.1:`port` (0: any), auditing to a temp file. */
export async function startOn(config: GatewayConfig, port = 0): Promise<GatewayOnPort> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-gw-attack-'));
  const auditLogPath = path.join(dir, 'audit.jsonl');
  const logs: Record<string, unknown>[] = [];
  const gateway = await startGateway({
    config,
    port,
    host: '127.0.0.1',
    auditLogPath,
    logger: (level, msg, fields) => void logs.push({ level, msg, ...fields }),
  });
  return {
    gateway,
    url: gateway.url,
    auditLogPath,
    logs,
    close: async () => {
      try {
        await gateway.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
