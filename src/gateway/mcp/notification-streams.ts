import type { ServerResponse } from 'node:http';
import { notificationJson } from './jsonrpc';
import type { McpSession, SessionStore } from './session-store';

/** Opens the GET stream (SSE) of a session: server → client notifications such as `tools/list_changed`. */
export function openNotificationStream(session: McpSession, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  session.streams.add(res);
  res.on('close', () => session.streams.delete(res));
}

/** Sends a notification to every open stream of every session. */
export function broadcast(sessions: SessionStore, method: string): number {
  const frame = `event: message\ndata: ${notificationJson(method)}\n\n`;
  let sent = 0;
  for (const session of sessions.all()) {
    for (const stream of session.streams) {
      stream.write(frame);
      sent++;
    }
  }
  return sent;
}

/** Writes an SSE comment to every open stream (keep-alive). */
export function broadcastComment(sessions: SessionStore): void {
  for (const session of sessions.all()) {
    for (const stream of session.streams) stream.write(': keep-alive\n\n');
  }
}
