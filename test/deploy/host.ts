/** What the Docker host shows: listening sockets and Docker objects, read as a person would check them. */
import * as fs from 'node:fs';
import { docker } from '../image/docker';

/** The local addresses listening on `port` (TCP, IPv4 and IPv6), e.g. `['127.0.0.1']`, read from /proc/net. */
export function listeningAddresses(port: number): string[] {
  const found = new Set<string>();
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue; // 0A: LISTEN
      const [hexAddr, hexPort] = fields[1].split(':');
      if (parseInt(hexPort, 16) !== port) continue;
      found.add(v6 ? ipv6(hexAddr) : ipv4(hexAddr));
    }
  }
  return [...found].sort();
}

function ipv4(hex: string): string {
  // little-endian 32-bit word
  return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
}

function ipv6(hex: string): string {
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const bytes = [3, 2, 1, 0].map((i) => word.slice(i * 2, i * 2 + 2));
    words.push(bytes[0] + bytes[1], bytes[2] + bytes[3]);
  }
  const text = words.map((x) => parseInt(x, 16).toString(16)).join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  return text;
}

/** Names of the Docker objects of a kind (`container`, `volume`, `network`, `config`, `secret`, `service`). */
export async function dockerObjects(
  kind: 'container' | 'volume' | 'network' | 'config' | 'secret' | 'service',
): Promise<string[]> {
  const args = kind === 'container' ? ['ps', '-a', '--format', '{{.Names}}'] : [kind, 'ls', '--format', '{{.Name}}'];
  const out = await docker(args, 60_000).catch((err: Error) => {
    // config/secret/service listings need a swarm manager; outside one there are none
    if (/not a swarm manager|This node is not a swarm manager/i.test(err.message)) return '';
    throw err;
  });
  return out.split('\n').filter((l) => l !== '');
}

/** Repository:tag of every local image. */
export async function imageTags(): Promise<string[]> {
  return (await docker(['images', '--format', '{{.Repository}}:{{.Tag}}'], 60_000)).split('\n').filter((l) => l !== '');
}
