import { isAscii } from 'node:buffer';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** Bytes read per `read()` call. */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** A line longer than this is not an audit record: it is dropped (counted once) instead of growing a buffer. */
export const MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
/**
 * Read-only and non-blocking: the path may have become a FIFO since the `stat` (whoever writes the directory can
 * swap one in), and a blocking open of a FIFO waits for a writer forever, holding every later scan.
 */
const READ_NOW = constants.O_RDONLY | constants.O_NONBLOCK;

/** What one {@link FileFollower.poll} found. */
export interface PollResult {
  /** The file was replaced (another inode) or truncated since the last poll, and was read again from its start. */
  readonly restarted: 'rotated' | 'truncated' | undefined;
  /** Lines longer than {@link MAX_LINE_BYTES}, dropped. */
  readonly overlong: number;
}

/**
 * Follows one append-only JSON-lines file: each poll reads only the bytes added since the last one (from a
 * stored offset) and hands over complete lines, decoded. A half-written last line waits until its newline arrives. A new
 * inode at the path (rotation) or a size below the offset (truncation) starts again from byte 0.
 */
export class FileFollower {
  private offset = 0;
  private ino: number | undefined;
  /** The bytes after the last newline read so far. */
  private partial: Buffer = Buffer.alloc(0);
  /** Inside an overlong line: skip up to the next newline. */
  private skipping = false;

  constructor(
    readonly path: string,
    /** Receives complete lines: decoded text, lines separated by `\n`, without the last newline. */
    private readonly onText: (text: string) => void,
  ) {}

  /** Bytes consumed so far (complete lines and the waiting partial one). */
  get position(): number {
    return this.offset;
  }

  /**
   * Reads what was appended since the last poll.
   * @throws the `stat`/`open` error (ENOENT when the file is gone)
   */
  async poll(): Promise<PollResult> {
    const info = await stat(this.path);
    let restarted: PollResult['restarted'];
    if (this.ino !== undefined && info.ino !== this.ino) restarted = 'rotated';
    else if (info.size < this.offset) restarted = 'truncated';
    if (restarted !== undefined) {
      this.offset = 0;
      this.partial = Buffer.alloc(0);
      this.skipping = false;
    }
    this.ino = info.ino;
    let overlong = 0;
    if (info.size <= this.offset) return { restarted, overlong };
    const handle = await open(this.path, READ_NOW);
    try {
      // The inode may have changed between stat and open: trust what was opened, and only a regular file.
      const opened = await handle.stat();
      if (!opened.isFile()) return { restarted, overlong };
      if (opened.ino !== this.ino) {
        this.ino = opened.ino;
        this.offset = 0;
        this.partial = Buffer.alloc(0);
        this.skipping = false;
        restarted = 'rotated';
      }
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      const end = opened.size;
      while (this.offset < end) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, end - this.offset), this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        overlong += this.consume(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
    return { restarted, overlong };
  }

  /** Splits a chunk into lines; returns how many overlong lines were dropped. */
  private consume(chunk: Buffer): number {
    let overlong = 0;
    let start = 0;
    if (this.skipping) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl < 0) return 0;
      this.skipping = false;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last < start) {
      this.keepPartial(chunk.subarray(start));
      return this.skipping ? 1 : 0;
    }
    let text: string;
    if (this.partial.length > 0) {
      text = decode(Buffer.concat([this.partial, chunk.subarray(start, last)]));
      this.partial = Buffer.alloc(0);
    } else {
      // A newline byte never occurs inside a multi-byte UTF-8 sequence: decoding up to it is safe.
      text = decode(chunk.subarray(start, last));
    }
    this.onText(text);
    this.keepPartial(chunk.subarray(last + 1));
    if (this.skipping) overlong++;
    return overlong;
  }

  private keepPartial(rest: Buffer): void {
    if (rest.length === 0) return;
    if (this.partial.length + rest.length > MAX_LINE_BYTES) {
      this.partial = Buffer.alloc(0);
      this.skipping = true;
      return;
    }
    // A copy: `rest` is a view of the reused read buffer.
    this.partial = Buffer.concat([this.partial, rest]);
  }
}

/** UTF-8 to text; pure ASCII (the common case) takes the cheaper one-byte decoder, with the same result. */
function decode(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}
