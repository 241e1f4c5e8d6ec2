/**
 * The example's `agents` gateway, served in this process as `npm start` serves it: the config the `SupportDesk`
 * construct generates, made local the way `dev` does (loopback, one token, the backend host mapped to the example
 * backend started here), with a session key kept in a file so that {@link ExampleGateway.restart} keeps sessions.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import type { GatewayConfig, ValidationErrorsChannel } from '../../src/config';
import { localGatewayConfig } from '../../src/dev/local-gateway-config';
import { type RunningGateway, silentLogger, startGateway } from '../../src/gateway';
import { SupportDesk } from '../../examples/support-desk/main';
import { startSupportDeskBackend, type RunningSupportDeskBackend } from '../../examples/support-desk/backend';

/** A served example gateway. */
export interface ExampleGateway {
  readonly url: string;
  readonly token: string;
  readonly port: number;
  /** Stops the gateway and starts it again on the same port with the same config and session key. */
  restart(): Promise<void>;
  /** Stops the gateway (the backend keeps running): {@link start} brings it back on the same port. */
  stop(): Promise<void>;
  /** Starts the stopped gateway again on its port, with the same config and session key. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link serveExampleGateway}. */
export interface ExampleGatewayOptions {
  /** @default - the example's own ('auto') */
  readonly validationErrors?: ValidationErrorsChannel;
  /** `refusal_structured_content`. @default - the example's own (true) */
  readonly refusalStructuredContent?: boolean;
}

/** The `agents` gateway config of the example, as the construct generates it. */
function agentsConfig(): GatewayConfig {
  const stack = new TerraformStack(new App(), 'support-desk');
  return new SupportDesk(stack, 'support-desk').agents.config();
}

/** Serves the example's `agents` gateway and its backend on loopback, each on a free port. */
export async function serveExampleGateway(options: ExampleGatewayOptions = {}): Promise<ExampleGateway> {
  const dir = mkdtempSync(path.join(tmpdir(), 'example-gateway-'));
  const sessionKeyFile = path.join(dir, 'session-key');
  writeFileSync(sessionKeyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  const token = randomBytes(32).toString('base64url');
  let backend: RunningSupportDeskBackend | undefined;
  let gateway: RunningGateway | undefined;
  try {
    backend = await startSupportDeskBackend({ port: 0 });
    const local = localGatewayConfig(agentsConfig(), {
      token,
      auditLogPath: path.join(dir, 'audit.jsonl'),
      maps: { 'support-desk-api:8080': `127.0.0.1:${backend.port}` },
      sessionKeyFile,
    });
    const config: GatewayConfig = {
      ...local,
      gateway: {
        ...local.gateway,
        ...(options.validationErrors !== undefined ? { validation_errors: options.validationErrors } : {}),
        ...(options.refusalStructuredContent !== undefined
          ? { refusal_structured_content: options.refusalStructuredContent }
          : {}),
      },
    };
    const start = (port: number): Promise<RunningGateway> =>
      startGateway({ config, port, host: '127.0.0.1', logger: silentLogger, env: {} });
    gateway = await start(0);
    const port = gateway.port;
    const running = backend;
    return {
      url: gateway.url,
      token,
      port,
      async restart() {
        await gateway?.close();
        gateway = undefined;
        gateway = await start(port);
      },
      async stop() {
        await gateway?.close();
        gateway = undefined;
      },
      async start() {
        gateway = await start(port);
      },
      async close() {
        await gateway?.close();
        await running.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await gateway?.close();
    await backend?.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
