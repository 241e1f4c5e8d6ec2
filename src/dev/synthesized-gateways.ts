/**
 * Finds the gateways in a synthesized cdktf output: every `docker_container` labelled
 * `cdktf-mcp-gateway.gateway`, with its config (as the deploy's hand-over copies it) and the host port it
 * publishes for the container's 8080.
 */
import * as fs from 'node:fs';
import { isObject } from '../validation/json-object';
import * as path from 'node:path';
import {
  DASHBOARD_CONFIG_FILE,
  DASHBOARD_CONTAINER_PORT,
  DASHBOARD_LABEL,
  GATEWAY_CONFIG_FILE,
  dockerHandoffsOf,
  handoffFileText,
  GATEWAY_CONTAINER_PORT,
  GATEWAY_LABEL,
  type GatewayConfig,
  isPort,
  readUploadedConfig,
} from '../config';

/** A gateway found in a synthesized stack. */
export interface SynthesizedGateway {
  /** The gateway name (the label value). */
  readonly name: string;
  readonly stack: string;
  /** `docker_container.<id>` in the stack. */
  readonly resource: string;
  /** The config document as the container gets it (Terraform escapes undone; not yet validated). */
  readonly config: unknown;
  /** The host port published for the container's 8080. */
  readonly hostPort: number;
}

/** The synthesized output is not what the constructs produce; the message names the stack and resource. */
export class SynthOutputError extends Error {}

type Json = Record<string, unknown>;

/** A Terraform block list may be synthesized as an array or, for a single block, as an object. */
function blocks(v: unknown): Json[] {
  if (Array.isArray(v)) return v.filter(isObject);
  return isObject(v) ? [v] : [];
}

function labelValue(container: Json, label: string): string | undefined {
  const labels = container.labels;
  for (const b of blocks(labels)) {
    if (b.label === label && typeof b.value === 'string') return b.value;
  }
  // A map-shaped `labels` attribute (older providers).
  if (isObject(labels) && typeof labels[label] === 'string') return labels[label] as string;
  return undefined;
}

/** Reads every `stacks/<stack>/cdk.tf.json` of a cdktf output directory, in stack-name order. */
export function readSynthesizedStacks(outdir: string): { stack: string; doc: Json }[] {
  const stacksDir = path.join(outdir, 'stacks');
  const names = fs.existsSync(stacksDir) ? fs.readdirSync(stacksDir).sort() : [];
  const stacks: { stack: string; doc: Json }[] = [];
  for (const stack of names) {
    const file = path.join(stacksDir, stack, 'cdk.tf.json');
    if (!fs.existsSync(file)) continue;
    const doc: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (isObject(doc)) stacks.push({ stack, doc });
  }
  return stacks;
}

/** The gateways of one synthesized stack document, in resource order. */
export function gatewaysInStack(stack: string, doc: Json): SynthesizedGateway[] {
  const containers =
    isObject(doc.resource) && isObject(doc.resource.docker_container) ? doc.resource.docker_container : {};
  const found: SynthesizedGateway[] = [];
  for (const [id, container] of Object.entries(containers)) {
    if (!isObject(container)) continue;
    const name = labelValue(container, GATEWAY_LABEL);
    if (name === undefined) continue;
    const where = `stack ${stack}, docker_container.${id}`;
    // the config a deploy copies in through the gateway's hand-over
    const handoff = dockerHandoffsOf(doc).find((h) => h.gateway === name);
    const text = handoff === undefined ? undefined : handoffFileText(handoff, GATEWAY_CONFIG_FILE);
    if (text === undefined) throw new SynthOutputError(`${where}: no config hand-over of ${GATEWAY_CONFIG_FILE}`);
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch (err) {
      throw new SynthOutputError(
        `${where}: the content of ${GATEWAY_CONFIG_FILE} is not JSON (${(err as Error).message})`,
      );
    }
    const port =
      blocks(container.ports).find((p) => Number(p.internal) === GATEWAY_CONTAINER_PORT) ?? blocks(container.ports)[0];
    const hostPort = Number(
      port?.external ?? (config as Partial<GatewayConfig>)?.gateway?.port ?? GATEWAY_CONTAINER_PORT,
    );
    if (!isPort(hostPort, true)) {
      throw new SynthOutputError(
        `${where}: ports.external must be a literal port number, got ${JSON.stringify(port?.external)}`,
      );
    }
    found.push({ name, stack, resource: `docker_container.${id}`, config, hostPort });
  }
  return found;
}

/**
 * Every gateway of the stacks in a cdktf output directory (of `stacks` only, when given), each with the name `dev`
 * shows: its own, or `STACK/NAME` where two stacks reuse a gateway name (the constructs allow it).
 *
 * @throws SynthOutputError naming a stack in `stacks` that the output does not hold
 */
export function findSynthesizedGateways(outdir: string, stacks: readonly string[] = []): SynthesizedGateway[] {
  const all = readSynthesizedStacks(outdir);
  const missing = stacks.filter((name) => !all.some((s) => s.stack === name));
  if (missing.length > 0) {
    const known = all.map((s) => s.stack).join(', ') || 'none';
    throw new SynthOutputError(`no stack named ${missing.join(', ')} in the synthesized app (stacks: ${known})`);
  }
  const chosen = stacks.length === 0 ? all : all.filter((s) => stacks.includes(s.stack));
  const gateways = chosen.flatMap(({ stack, doc }) => gatewaysInStack(stack, doc));
  const count = new Map<string, number>();
  for (const g of gateways) count.set(g.name, (count.get(g.name) ?? 0) + 1);
  return gateways.map((g) => (count.get(g.name)! > 1 ? { ...g, name: `${g.stack}/${g.name}` } : g));
}

/** An audit dashboard found in a synthesized stack. */
export interface SynthesizedDashboard {
  readonly name: string;
  readonly stack: string;
  /** The host port published for the dashboard's container port. */
  readonly hostPort: number;
  /** The flag rule and retention of its uploaded config (the audit directories and auth are `dev`'s own). */
  readonly config: { readonly retention_ms?: number; readonly flag?: { min_refusals?: number; min_rate?: number } };
}

/** Every `docker_container` labelled as an audit dashboard in the stacks of a cdktf output (of `stacks` only). */
export function findSynthesizedDashboards(outdir: string, stacks: readonly string[] = []): SynthesizedDashboard[] {
  const chosen = readSynthesizedStacks(outdir).filter((s) => stacks.length === 0 || stacks.includes(s.stack));
  const found: SynthesizedDashboard[] = [];
  for (const { stack, doc } of chosen) {
    const containers =
      isObject(doc.resource) && isObject(doc.resource.docker_container) ? doc.resource.docker_container : {};
    for (const [id, container] of Object.entries(containers)) {
      if (!isObject(container)) continue;
      const name = labelValue(container, DASHBOARD_LABEL);
      if (name === undefined) continue;
      const upload = blocks(container.upload).find((u) => u.file === DASHBOARD_CONFIG_FILE);
      let config: SynthesizedDashboard['config'] = {};
      try {
        if (typeof upload?.content === 'string')
          config = readUploadedConfig(upload.content) as SynthesizedDashboard['config'];
      } catch (err) {
        throw new SynthOutputError(
          `stack ${stack}, docker_container.${id}: ${DASHBOARD_CONFIG_FILE} is not JSON (${(err as Error).message})`,
        );
      }
      const port = blocks(container.ports).find((p) => Number(p.internal) === DASHBOARD_CONTAINER_PORT);
      const hostPort = Number(port?.external ?? DASHBOARD_CONTAINER_PORT);
      found.push({ name, stack, hostPort: Number.isInteger(hostPort) ? hostPort : DASHBOARD_CONTAINER_PORT, config });
    }
  }
  return found;
}
