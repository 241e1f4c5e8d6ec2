import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** Where a pod finds its service account's credentials (mounted by Kubernetes). */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The longest a single API call may take. */
const API_TIMEOUT_MS = 10_000;

/** An API call the server refused, with its HTTP status and the message of its `Status` object. */
export class ClusterApiError extends Error {
  public constructor(
    public readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ClusterApiError';
  }
}

/** The few Kubernetes API calls the apply job makes (paths relative to the API server, e.g. `/api/v1/...`). */
export interface ClusterApi {
  get(path: string): Promise<Record<string, unknown>>;
  /** A JSON merge patch (`application/merge-patch+json`). */
  patch(path: string, body: unknown): Promise<Record<string, unknown>>;
}

/**
 * The API server as seen from inside a pod: its address from the environment Kubernetes sets, the service account's
 * token and the cluster's CA. The token is read for every call (kubelet rotates it).
 */
export function inClusterApi(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): ClusterApi {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (host === undefined || host === '') {
    throw new Error('not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST is not set');
  }
  const origin = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const dispatcher = new Agent({ connect: { ca: readFileSync(`${dir}/ca.crt`) } });
  return clusterApi(origin, () => readFileSync(`${dir}/token`, 'utf8').trim(), dispatcher);
}

/** A client of the API server at `origin`, authenticated with a bearer token. */
export function clusterApi(origin: string, token: () => string, dispatcher?: Agent): ClusterApi {
  const call = async (method: 'GET' | 'PATCH', path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await request(`${origin}${path}`, {
      method,
      dispatcher,
      headers: {
        authorization: `Bearer ${token()}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/merge-patch+json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: API_TIMEOUT_MS,
      bodyTimeout: API_TIMEOUT_MS,
    });
    const text = await res.body.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // a proxy's HTML error page: reported by status below
    }
    if (res.statusCode >= 300) {
      const message = typeof parsed.message === 'string' ? parsed.message : `HTTP ${res.statusCode}`;
      throw new ClusterApiError(res.statusCode, `${method} ${path}: ${message}`);
    }
    return parsed;
  };
  return { get: (path) => call('GET', path), patch: (path, body) => call('PATCH', path, body) };
}
