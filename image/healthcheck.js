#!/usr/bin/env node
// The image's HEALTHCHECK: GET /healthz on the port the gateway actually listens on, exit 0 when it answers 2xx.
// The port follows, in order: GATEWAY_HEALTH_URL (a full URL), `--port N` on the gateway's command line
// (PID 1, the ENTRYPOINT), the `gateway.port` of the `--config` file, then 8080.
'use strict';
const fs = require('node:fs');

/** The gateway's argv (PID 1 is the ENTRYPOINT's node). */
function gatewayArgs() {
  try {
    return fs.readFileSync('/proc/1/cmdline', 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

function flag(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

function configSettings(file) {
  try {
    const text = fs.readFileSync(file, 'utf8');
    // the runtime loads JSON or YAML by content; `yaml` is one of its dependencies in /app/node_modules
    const doc = text.trimStart().startsWith('{') ? JSON.parse(text) : require('yaml').parse(text);
    return (doc && doc.gateway) || {};
  } catch {
    return {}; // unreadable: fall back to the defaults
  }
}

/** The URL to probe, from the gateway's argv, the environment and a reader of the config's `gateway` settings. */
function healthUrl(args, env, readSettings) {
  if (env.GATEWAY_HEALTH_URL) return env.GATEWAY_HEALTH_URL;
  const settings = readSettings(flag(args, '--config') || '/etc/cdktf-mcp-gateway/gateway.json');
  const port = flag(args, '--port') || settings.port || 8080;
  let host = flag(args, '--host') || settings.host || '127.0.0.1';
  if (host === '0.0.0.0' || host === '::' || host === '') host = '127.0.0.1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${port}/healthz`;
}

module.exports = { healthUrl };

if (require.main === module) {
  fetch(healthUrl(gatewayArgs(), process.env, configSettings), { signal: AbortSignal.timeout(4000) }).then(
    (res) => process.exit(res.ok ? 0 : 1),
    () => process.exit(1),
  );
}
