/**
 * `SO_REUSEPORT` for the gateway's listening socket: several processes (replicas on one Swarm node, or
 * `serve --workers N`) bind the same port and the kernel spreads new connections over them, so one process can
 * stop while the others keep accepting. Node passes `reusePort` to the socket from 22.12 (and 23.1) on Linux;
 * older versions ignore the option silently, which is why it is checked here rather than trusted.
 */

/** Whether this Node can bind with `reusePort`, and why not when it cannot. */
export type ReusePortSupport = { readonly supported: true } | { readonly supported: false; readonly reason: string };

/**
 * Whether `server.listen({ reusePort: true })` takes effect on this platform and Node version.
 * @example
 * const support = reusePortSupport();
 * if (!support.supported) console.error(support.reason);
 */
export function reusePortSupport(
  version: string = process.versions.node,
  platform: NodeJS.Platform = process.platform,
): ReusePortSupport {
  if (platform !== 'linux')
    return { supported: false, reason: `SO_REUSEPORT sharing needs Linux (this is ${platform})` };
  const [major, minor] = version.split('.').map(Number);
  if (major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12)) return { supported: true };
  return { supported: false, reason: `reusePort needs Node >= 22.12 (this is Node ${version})` };
}
