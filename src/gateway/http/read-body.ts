import type { IncomingMessage } from 'node:http';
import { RpcCode } from '../errors/jsonrpc';
import { HttpError } from '../errors/http-error';

/**
 * Reads a request body up to `limit` bytes. Over the limit (declared or actual) it stops keeping what arrives and
 * rejects with HTTP 413, whose answer closes the connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = (): HttpError => {
    discardRest(req);
    return new HttpError(413, RpcCode.INVALID_REQUEST, `Payload Too Large: the body exceeds ${limit} bytes`, {
      headers: { connection: 'close' },
    });
  };
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData).off('end', onEnd);
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks, size).toString('utf8'));
    req.on('data', onData).on('end', onEnd).on('error', reject);
  });
}

/**
 * Drops the rest of a refused body without keeping it, so the client gets to read the 413 instead of a reset;
 * the connection is destroyed if the rest is slow or large.
 */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  let discarded = 0;
  const timer = setTimeout(() => req.destroy(), 2000);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > 16 * 1_048_576) req.destroy();
  });
  req.on('end', () => clearTimeout(timer));
  req.on('close', () => clearTimeout(timer));
  req.resume();
}
