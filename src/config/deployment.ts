/**
 * Where a deployed gateway meets its container: shared by the constructs that synthesize the container and by
 * `dev`, which finds gateways in a synthesized stack.
 */

/** The container label that marks a gateway container; its value is the gateway name. */
export const GATEWAY_LABEL = 'cdktf-mcp-gateway.gateway';

/**
 * The label of the one-shot container that hands a single-container gateway its config (`apply-config`); its value is
 * the gateway name, and its upload of {@link GATEWAY_CONFIG_FILE} is the config the gateway serves.
 */
export const GATEWAY_CONFIG_LABEL = 'cdktf-mcp-gateway.config';

/** Where the gateway container finds its config; the image's `CMD` reads this file. */
export const GATEWAY_CONFIG_FILE = '/etc/cdktf-mcp-gateway/gateway.json';

/** The port the gateway listens on inside its container. */
export const GATEWAY_CONTAINER_PORT = 8080;

/** Where the image writes the audit log; the gateway's volume is mounted here. */
export const AUDIT_LOG_DIR = '/var/log/cdktf-mcp-gateway';

/** The image's health probe (`image/healthcheck.js`): it follows the port the gateway was started with. */
export const GATEWAY_HEALTHCHECK_SCRIPT = '/app/healthcheck.js';

/** Where an audit dashboard container finds its config (`dashboard --config`). */
export const DASHBOARD_CONFIG_FILE = '/etc/cdktf-mcp-gateway/dashboard.json';

/** The port an audit dashboard listens on inside its container. */
export const DASHBOARD_CONTAINER_PORT = 8090;

/** The container label that marks an audit dashboard container; its value is the dashboard name. */
export const DASHBOARD_LABEL = 'cdktf-mcp-gateway.dashboard';

/** Where the gateway reads secrets (Docker secrets are mounted here), before the environment variable. */
export const SECRETS_DIR = '/run/secrets';

/** Overrides {@link SECRETS_DIR} for the gateway process (tests, hosts without Docker). */
export const SECRETS_DIR_ENV = 'CDKTF_MCP_GATEWAY_SECRETS_DIR';

/** Names the node a replica runs on, for `audit_log: 'store'` (a Swarm service sets `{{.Node.Hostname}}`). */
export const AUDIT_NODE_ENV = 'CDKTF_MCP_GATEWAY_NODE';

/** Where a single-container gateway keeps what must outlive the container (a Docker volume is mounted here). */
export const GATEWAY_STATE_DIR = '/var/lib/cdktf-mcp-gateway';

/** The session key a single-container gateway generated and keeps in its state volume (`session_key_store`). */
export const GATEWAY_SESSION_KEY_STORE = `${GATEWAY_STATE_DIR}/session-key`;

/** Where a gateway container finds the CA bundles its services name (`endpoint.tls.caFile`), uploaded by synthesis. */
export const GATEWAY_CA_DIR = '/etc/cdktf-mcp-gateway/ca';
