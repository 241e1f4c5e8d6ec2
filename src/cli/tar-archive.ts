/** A regular file of a tar archive: its path (relative, `/`-separated), content, mode and owner. */
export interface TarEntry {
  readonly path: string;
  readonly content: Buffer;
  /** Permission bits, e.g. `0o444`. */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

const BLOCK = 512;

/**
 * A POSIX ustar archive of regular files, as `docker cp -` reads it from its standard input: each entry keeps its
 * mode and owner, which is how a secret reaches a container readable by the gateway's user alone.
 *
 * @throws Error for a path ustar cannot hold (absolute, `..`, or longer than its 100 + 155 bytes)
 */
export function tarArchive(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry), entry.content, Buffer.alloc((BLOCK - (entry.content.length % BLOCK)) % BLOCK));
  }
  // the end of the archive: two zero blocks
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function header(entry: TarEntry): Buffer {
  const { name, prefix } = splitPath(entry.path);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, entry.mode);
  octal(h, 108, 8, entry.uid);
  octal(h, 116, 8, entry.gid);
  octal(h, 124, 12, entry.content.length);
  octal(h, 136, 12, 0);
  h.write('0', 156, 1, 'latin1');
  h.write('ustar\u000000', 257, 8, 'latin1');
  h.write(prefix, 345, 155, 'utf8');
  // the checksum is computed with its own field read as eight spaces
  h.write('        ', 148, 8, 'latin1');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'latin1');
  return h;
}

function octal(h: Buffer, offset: number, length: number, value: number): void {
  // the field holds length - 1 octal digits and a NUL
  if (!Number.isInteger(value) || value < 0 || value >= 8 ** (length - 1)) {
    throw new Error(`tar: ${value} does not fit a ${length}-byte header field`);
  }
  h.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, length, 'latin1');
}

function splitPath(path: string): { name: string; prefix: string } {
  if (path.startsWith('/') || path.split('/').includes('..') || path === '') {
    throw new Error(`tar: the path ${JSON.stringify(path)} must be relative and stay inside the archive`);
  }
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  // the first cut whose name fits in 100 bytes: the prefix gets as much of the path as it can
  for (let cut = path.indexOf('/'); cut > 0; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) > 155) break;
    if (Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`tar: the path ${JSON.stringify(path)} is too long for a ustar archive`);
}
