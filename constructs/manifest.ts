import * as fs from 'node:fs';
import { TerraformStack, TerraformVariable } from 'cdktf';
import { Secret } from './secret';
import { Construct } from 'constructs';
import { AuditDashboard } from './audit-dashboard';
import { isInheritedName, ownChild } from './construct-id';
import { Gateway, type GatewayProps } from './gateway';
import { LimitStore } from './limit-store';
import {
  manifestErrorAt,
  refusalAt,
  ManifestDocument,
  ManifestError,
  ManifestGateway,
  ManifestLocation,
} from './manifest-document';
import { readManifest } from './manifest-props';
import { inManifestTerms } from './manifest-schema';
import { wordRefusals } from './refusal-wording';
import { OpenApiServices } from './openapi-services';
import { Service } from './service';

/** Props of a `Manifest`. */
export interface ManifestProps {
  /**
   * The YAML file declaring `services` and `gateways` (snake_case attributes), relative to the working
   * directory of the app (where `cdktf synth` runs it) or absolute. Errors name it as given. Paths inside it (an
   * `openapi` document, a build context, a CA file) are relative to the file.
   */
  readonly path: string;
}

/**
 * Services and gateways declared in a YAML manifest instead of TypeScript: the same constructs, created from
 * the file. A bad manifest fails with `FILE:LINE:COL: PATH: REASON` for every mistake found.
 *
 * @example
 * const manifest = new Manifest(stack, 'support-desk', { path: 'support-desk.yaml' });
 * manifest.gateways.get('agents')!.addService(extraService);
 */
export class Manifest extends Construct {
  /** The services, by tool name, in file order. */
  public readonly services: ReadonlyMap<string, Service>;
  /** The gateways, by name, in file order. */
  public readonly gateways: ReadonlyMap<string, Gateway>;
  /** The audit dashboards, by name, in file order. */
  public readonly dashboards: ReadonlyMap<string, AuditDashboard>;
  /** The limit stores, by name, in file order. */
  public readonly limitStores: ReadonlyMap<string, LimitStore>;
  /** The `openapi` entries, by name, in file order (their generated services are in `services` too). */
  public readonly openapi: ReadonlyMap<string, OpenApiServices>;

  public constructor(scope: Construct, id: string, props: ManifestProps) {
    super(scope, id);
    const file = props.path;
    const doc = readManifest(file, readManifestFile(file));
    // clashes between entries would otherwise surface only at synthesis, without a line and column
    const clashes: ManifestError[] = [];
    // The entries are created where the manifest is, with their names as construct ids: exactly the constructs a
    // TypeScript stack would declare, so moving between the two plans no change (same addresses and names).
    const entryScope = scope;
    sharedNames(file, doc, scope, this);
    const declared = createServices(entryScope, file, doc.services, clashes);
    this.openapi = new Map(
      doc.openapi.map(({ at, name, ...props }) => [
        name,
        attempt(file, at, () => new OpenApiServices(entryScope, name, props)),
      ]),
    );
    this.services = withGeneratedTools(file, declared, doc.openapi, this.openapi);
    this.limitStores = new Map(
      doc.limitStores.map(({ at, passwordVariable, ...props }) => {
        const password =
          passwordVariable === undefined
            ? undefined
            : sensitiveVariable(scope, passwordVariable, STORE_PASSWORD_DESCRIPTION).stringValue;
        const store = attempt(
          file,
          at,
          () => new LimitStore(entryScope, props.name, password === undefined ? props : { ...props, password }),
        );
        return [props.name, store];
      }),
    );
    this.gateways = createGateways(entryScope, file, doc.gateways, this.services, this.limitStores, clashes);
    clashes.push(...storeClashes(file, doc.limitStores, this.services, this.gateways));
    this.dashboards = new Map(
      doc.dashboards.map(({ at, gateways: names, ...props }) => {
        const gateways = names.map((name) => this.gateways.get(name)!);
        return [
          props.name,
          attempt(file, at, () => new AuditDashboard(entryScope, props.name, { ...props, gateways })),
        ];
      }),
    );
    if (clashes.length > 0) {
      const [{ line, column }] = clashes;
      throw new ManifestError(clashes.map((e) => e.message).join('\n'), file, line, column);
    }
  }
}

/**
 * Entries are constructs of the manifest's scope, so one name may stand for one entry only, and not for a
 * construct the scope already holds (the manifest's own id included): said at the entry, before any is created.
 */
function sharedNames(file: string, doc: ManifestDocument, scope: Construct, manifest: Construct): void {
  const seen = new Map<string, string>();
  const entries = [
    ...doc.services.map((e) => ['services', e] as const),
    ...doc.gateways.map((e) => ['gateways', e] as const),
    ...doc.dashboards.map((e) => ['dashboards', e] as const),
    ...doc.limitStores.map((e) => ['limit_stores', e] as const),
    ...doc.openapi.map((e) => ['openapi', e] as const),
  ];
  const problems: ManifestError[] = [];
  for (const [kind, entry] of entries) {
    if (isInheritedName(entry.name)) {
      const reason =
        `the name \`${entry.name}\` is one every JavaScript object inherits, which the constructs library cannot ` +
        'hold as a construct id (services, gateways, dashboards and limit stores become constructs named after their keys): ' +
        'give the entry another name';
      problems.push(manifestErrorAt(file, entry.at, reason));
      continue;
    }
    const first = seen.get(entry.name);
    const taken = ownChild(scope, entry.name);
    if (first !== undefined || taken !== undefined) {
      const other =
        first !== undefined
          ? `${first}.${entry.name}`
          : taken === manifest
            ? 'the id of this Manifest (give the Manifest another id)'
            : `a construct \`${entry.name}\` of the stack`;
      const reason =
        `the name \`${entry.name}\` is taken by ${other}: services, gateways, dashboards, limit stores and openapi entries become constructs ` +
        'of the stack named after their keys, so each needs its own name';
      problems.push(manifestErrorAt(file, entry.at, reason));
    }
    seen.set(entry.name, kind);
  }
  if (problems.length > 0) {
    const [{ line, column }] = problems;
    throw new ManifestError(problems.map((e) => e.message).join('\n'), file, line, column);
  }
}

function readManifestFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new ManifestError(
      `${file}: cannot read the manifest (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); ` +
        'the path is relative to the directory the app runs in',
      file,
      0,
      0,
    );
  }
}

/** The manifest's services, in file order; a second `container` for one host is a clash. */
function createServices(
  scope: Construct,
  file: string,
  entries: ManifestDocument['services'],
  clashes: ManifestError[],
): Map<string, Service> {
  const services = new Map<string, Service>();
  const hosts = new Map<string, string>();
  for (const { at, ...props } of entries) {
    const service = attempt(file, at, () => new Service(scope, props.name, props));
    services.set(props.name, service);
    const host = service.containerHost;
    if (host === undefined) continue;
    const first = hosts.get(host);
    if (first === undefined) hosts.set(host, props.name);
    else {
      const reason =
        `a second \`container\` for host \`${host}\` (services.${first} deploys one already): one network alias ` +
        'names one container; keep `container` on one service only (services may share a backend)';
      clashes.push(manifestErrorAt(file, at, reason));
    }
  }
  return services;
}

/**
 * The declared services and the tools the `openapi` entries generate, by tool name: what gateways may list. A
 * generated tool named like a declared service (or like another entry's tool) is said at the entry.
 */
function withGeneratedTools(
  file: string,
  declared: ReadonlyMap<string, Service>,
  entries: ManifestDocument['openapi'],
  generated: ReadonlyMap<string, OpenApiServices>,
): Map<string, Service> {
  const services = new Map(declared);
  const from = new Map<string, string>();
  for (const { name, at } of entries) {
    for (const service of generated.get(name)!.services) {
      if (services.has(service.name)) {
        const other = from.has(service.name) ? `openapi.${from.get(service.name)}` : `services.${service.name}`;
        const reason =
          `the operation's tool \`${service.name}\` is also ${other === `services.${service.name}` ? 'declared as' : 'generated by'} ` +
          `${other}: a gateway lists tools by name, so each needs its own; rename one (overrides.<operation>.name)`;
        throw manifestErrorAt(file, at, reason);
      }
      services.set(service.name, service);
      from.set(service.name, name);
    }
  }
  return services;
}

/** The manifest's gateways, in file order; a host port published twice is a clash. */
function createGateways(
  scope: Construct,
  file: string,
  entries: ManifestDocument['gateways'],
  services: ReadonlyMap<string, Service>,
  limitStores: ReadonlyMap<string, LimitStore>,
  clashes: ManifestError[],
): Map<string, Gateway> {
  const gateways = new Map<string, Gateway>();
  const ports = new Map<number, string>();
  for (const entry of entries) {
    const { at, services: names, servicesAt, sessionKeyVariable, ...rest } = entry;
    const { storeUrl, storePasswordVariable, storeOnUnavailable, storeTimeoutMs, storeLimitStore, ...other } = rest;
    const { registryAddress, registryUsername, registryPasswordVariable, registryInsecure, ...props } = other;
    const { store, storePassword } = gatewayStore(
      scope,
      { storeUrl, storePasswordVariable, storeOnUnavailable, storeTimeoutMs, storeLimitStore },
      limitStores,
    );
    const serving = names.map((name, i) => {
      const service = services.get(name);
      if (service !== undefined) return service;
      const known = [...services.keys()].join(', ') || 'none';
      throw manifestErrorAt(
        file,
        servicesAt[i],
        `unknown service \`${name}\` (declared services and generated tools: ${known})`,
      );
    });
    const sessionKey =
      sessionKeyVariable === undefined ? undefined : sensitiveVariable(scope, sessionKeyVariable).stringValue;
    const registry =
      registryAddress === undefined
        ? undefined
        : {
            address: registryAddress,
            ...(registryUsername === undefined ? {} : { username: registryUsername }),
            ...(registryPasswordVariable === undefined
              ? {}
              : {
                  password: sensitiveVariable(scope, registryPasswordVariable, REGISTRY_PASSWORD_DESCRIPTION)
                    .stringValue,
                }),
            ...(registryInsecure === undefined ? {} : { insecure: registryInsecure }),
          };
    const secrets = secretVariables(scope, serving);
    const gateway = attempt(
      file,
      at,
      () =>
        new Gateway(scope, props.name, {
          ...props,
          sessionKey,
          services: serving,
          secrets: storePassword === undefined ? secrets : { ...secrets, ...storePassword },
          ...(store === undefined ? {} : { store }),
          ...(registry === undefined ? {} : { registry }),
        }),
    );
    // its checks at synthesis (a rate limit's tool, a backend a Swarm service cannot reach) read as its other errors
    wordRefusals(gateway, (message) => refusalAt(file, at, inManifestTerms(message, at.written)).message);
    gateways.set(props.name, gateway);
    const first = ports.get(gateway.port);
    if (first === undefined) ports.set(gateway.port, props.name);
    else {
      const port = props.port === undefined ? `${gateway.port} (the default)` : `${gateway.port}`;
      const reason = `host port ${port} is already published by gateways.${first}: give each gateway its own \`port\``;
      clashes.push(manifestErrorAt(file, at, reason));
    }
  }
  return gateways;
}

/**
 * What a limit store on Docker shares with another entry, said at the store: its name, which is its host name on the
 * stack's network, with a service's backend container; its `host_port` with a gateway's or another store's.
 */
function storeClashes(
  file: string,
  stores: ManifestDocument['limitStores'],
  services: ReadonlyMap<string, Service>,
  gateways: ReadonlyMap<string, Gateway>,
): ManifestError[] {
  const hosts = new Map(
    [...services].flatMap(([name, s]) => (s.containerHost === undefined ? [] : [[s.containerHost, name]])),
  );
  const ports = new Map<number, string>(
    [...gateways].flatMap(([name, g]) => (g.deployment === undefined ? [[g.port, `gateways.${name}`] as const] : [])),
  );
  const clashes: ManifestError[] = [];
  for (const { name, at, hostPort, kubernetes } of stores) {
    if (kubernetes !== undefined) continue;
    const service = hosts.get(name);
    if (service !== undefined) {
      const reason =
        `the store's name \`${name}\` is also the host of services.${service}'s container: on the stack's network ` +
        'one name reaches one container, so the gateway would call one of them for both; give the store another name';
      clashes.push(manifestErrorAt(file, at, reason));
    }
    if (hostPort === undefined) continue;
    const other = ports.get(hostPort);
    if (other !== undefined) {
      const reason = `host port ${hostPort} is already published by ${other}: give the store its own \`host_port\``;
      clashes.push(manifestErrorAt(file, at, reason));
    } else ports.set(hostPort, `limit_stores.${name}`);
  }
  return clashes;
}

/**
 * A gateway's `store`: one of the manifest's limit stores (`limit_store`, checked to name one) or a server of the
 * user's (`url`), whose password is a sensitive variable handed to the gateway as a secret of the same name.
 */
function gatewayStore(
  scope: Construct,
  entry: Pick<
    ManifestGateway,
    'storeUrl' | 'storePasswordVariable' | 'storeOnUnavailable' | 'storeTimeoutMs' | 'storeLimitStore'
  >,
  limitStores: ReadonlyMap<string, LimitStore>,
): { store?: GatewayProps['store']; storePassword?: Record<string, string> } {
  const { storeUrl, storePasswordVariable, storeOnUnavailable, storeTimeoutMs, storeLimitStore } = entry;
  if (storeLimitStore !== undefined) return { store: limitStores.get(storeLimitStore)! };
  if (storeUrl === undefined) return {};
  const store = {
    url: storeUrl,
    ...(storePasswordVariable === undefined ? {} : { password: Secret.env(storePasswordVariable) }),
    ...(storeOnUnavailable === undefined ? {} : { onUnavailable: storeOnUnavailable }),
    ...(storeTimeoutMs === undefined ? {} : { timeoutMs: storeTimeoutMs }),
  };
  if (storePasswordVariable === undefined) return { store };
  const variable = sensitiveVariable(scope, storePasswordVariable, STORE_PASSWORD_DESCRIPTION);
  return { store, storePassword: { [storePasswordVariable]: variable.stringValue } };
}

/**
 * The values of the secrets the services name: one sensitive `TerraformVariable` per secret name in the stack
 * (shared by every gateway and manifest that names it), set at deploy with `TF_VAR_NAME`.
 */
function secretVariables(scope: Construct, services: readonly Service[]): Record<string, string> | undefined {
  const names = [...new Set(services.flatMap((s) => s.secretNames))];
  if (names.length === 0) return undefined;
  const stack = TerraformStack.of(scope);
  // A null-prototype object: a secret named `__proto__` is an own entry like any other.
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of names) {
    const id = `secret-${name}`;
    const existing = stack.node.tryFindChild(id);
    const variable =
      existing instanceof TerraformVariable
        ? existing
        : new TerraformVariable(stack, id, {
            type: 'string',
            sensitive: true,
            description: `Secret ${name} for the MCP gateways`,
          });
    variable.overrideLogicalId(name);
    values[name] = variable.stringValue;
  }
  return values;
}

const SESSION_KEY_DESCRIPTION =
  'Session key of replicated MCP gateways: hex or base64 text of >= 32 bytes (openssl rand -base64 32)';
const STORE_PASSWORD_DESCRIPTION = 'Password of the limit store (Redis or Valkey) of the MCP gateways';
const REGISTRY_PASSWORD_DESCRIPTION = 'Password of the image registry the MCP gateway replicas pull from';

/**
 * The stack's sensitive string variable `name` (`session_key: { variable: name }`, `store.password`), created on
 * first use.
 */
function sensitiveVariable(scope: Construct, name: string, description = SESSION_KEY_DESCRIPTION): TerraformVariable {
  const stack = TerraformStack.of(scope);
  const existing = stack.node.tryFindChild(name);
  if (existing instanceof TerraformVariable) return existing;
  return new TerraformVariable(stack, name, { type: 'string', sensitive: true, description });
}

/** Run a construct's own checks and, when one fails, say where in the manifest the entry is. */
function attempt<T>(file: string, at: ManifestLocation, create: () => T): T {
  try {
    return create();
  } catch (err) {
    throw refusalAt(file, at, inManifestTerms((err as Error).message, at.written));
  }
}
