/**
 * Connection limits of the gateway's port, so that slow or greedy clients cannot pin its memory or its sockets:
 * - open connections per client address are capped (`max_connections_per_address`); one more is answered
 *   `503` with a one-line reason and closed before any request on it is read;
 * - a connection whose answer (or notification stream) waits on a client that stopped reading — data queued in
 *   the process, no byte written for `write_timeout_ms` — is destroyed, which frees what was queued.
 *
 * Header and request timeouts (`header_timeout_ms`, `request_timeout_ms`) are node:http's own, set on the server.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { RpcCode } from '../errors/jsonrpc';

/** The limits, re-read at each check (a reload may change them). */
export interface ConnectionLimits {
  readonly maxConnectionsPerAddress: number;
  readonly writeTimeoutMs: number;
}

interface Tracked {
  readonly address: string;
  /** `bytesWritten` at the last sweep, and since when it has not moved with data queued. */
  written: number;
  stalledSince: number | undefined;
}

/** How often queued writes are checked; a stalled client is closed within `write_timeout_ms` plus this. */
const SWEEP_MS = 1_000;

/** Tracks the connections of one server; `close()` stops the sweep. */
export class ConnectionGuard {
  private readonly sockets = new Map<Socket, Tracked>();
  private readonly perAddress = new Map<string, number>();
  private readonly sweep: NodeJS.Timeout;

  /**
   * @param server the gateway's server (its `connection` event)
   * @param limits read at every new connection and every sweep
   * @param onRefused called with the address whose connection was refused or closed, and why (for the log)
   */
  constructor(
    server: Server,
    private readonly limits: () => ConnectionLimits,
    private readonly onRefused: (address: string, reason: 'too_many_connections' | 'write_timeout') => void,
  ) {
    server.on('connection', (socket: Socket) => this.admit(socket));
    this.sweep = setInterval(() => this.closeStalled(), SWEEP_MS);
    this.sweep.unref();
  }

  /** Open connections from `address` right now. */
  connectionsFrom(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  close(): void {
    clearInterval(this.sweep);
  }

  private admit(socket: Socket): void {
    const address = socket.remoteAddress ?? 'unknown';
    const { maxConnectionsPerAddress } = this.limits();
    const open = this.perAddress.get(address) ?? 0;
    if (open >= maxConnectionsPerAddress) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: RpcCode.INTERNAL_ERROR,
          message: `Service Unavailable: at most ${maxConnectionsPerAddress} open connections per client address (max_connections_per_address); close one first`,
        },
      });
      socket.on('error', () => undefined);
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      this.onRefused(address, 'too_many_connections');
      return;
    }
    this.perAddress.set(address, open + 1);
    this.sockets.set(socket, { address, written: 0, stalledSince: undefined });
    socket.once('close', () => {
      this.sockets.delete(socket);
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left === 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
  }

  /** Destroys every connection with data queued and no byte written for `write_timeout_ms`. */
  private closeStalled(): void {
    const { writeTimeoutMs } = this.limits();
    const now = Date.now();
    for (const [socket, tracked] of this.sockets) {
      const written = socket.bytesWritten;
      if (socket.writableLength === 0 || written !== tracked.written) {
        tracked.written = written;
        tracked.stalledSince = socket.writableLength === 0 ? undefined : now;
        continue;
      }
      tracked.stalledSince ??= now;
      if (now - tracked.stalledSince >= writeTimeoutMs) {
        this.onRefused(tracked.address, 'write_timeout');
        socket.destroy();
      }
    }
  }
}
