/**
 * Where the test clients' installers put what they install: a per-user cache outside the clone, one folder per set
 * of pinned versions (a change of them installs into a new folder).
 */
const { createHash } = require('node:crypto');
const os = require('node:os');
const path = require('node:path');

/**
 * `env[override]` when set, else `$XDG_CACHE_HOME/cdktf-mcp-gateway/<name>-<hash of versions>`, else under
 * `~/.cache`.
 */
function clientCacheDir(env, override, name, versions) {
  if (env[override]) return path.resolve(env[override]);
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const hash = createHash('sha256').update(JSON.stringify(versions)).digest('hex').slice(0, 12);
  return path.join(cache, 'cdktf-mcp-gateway', `${name}-${hash}`);
}

module.exports = { clientCacheDir };
