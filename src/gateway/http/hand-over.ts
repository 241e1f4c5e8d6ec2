/**
 * Hands the listening port over to the processes that share it (`reusePort`) without failing a client's
 * request. HTTP/1.1 has no way to tell a client "send your next request elsewhere" except closing the
 * connection, and closing an idle keep-alive connection races with the request the client may be writing to it
 * at that moment. So, in order:
 *
 * 1. the listening socket closes at once: the kernel sends new connections to the other processes;
 * 2. every response from now on carries `Connection: close`, so the client's next request opens a connection,
 *    which another process accepts; requests keep being served meanwhile (they are not refused);
 * 3. notification streams end (the client reopens them, elsewhere);
 * 4. it waits until every connection has closed, or for the server's keep-alive timeout plus a second: by then a
 *    connection left idle since before step 1 has been dropped by its client (clients close idle connections a
 *    little before the timeout the server announces), so closing what is left races with no request.
 *
 * The caller then refuses what still arrives, drains in-flight calls and closes every connection.
 */
import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';

/** Extra wait past the server's keep-alive timeout before idle connections are closed. */
const IDLE_MARGIN_MS = 1_000;

/**
 * Steps 1-4 above; resolves when every connection has closed or the keep-alive timeout (plus a margin) passed,
 * with a promise of the moment the last connection closes (the server is no longer listening either way).
 *
 * @param endStreams ends the open notification streams (their sessions stay valid)
 */
export async function handOverPort(server: Server, endStreams: () => void): Promise<{ closed: Promise<void> }> {
  server.prependListener('request', (_req, res) => {
    res.setHeader('connection', 'close');
  });
  // net.Server's close, not http.Server's: the latter also closes idle keep-alive connections right away (step 4)
  const allClosed = server.listening
    ? new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()))
    : Promise.resolve();
  endStreams();
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, server.keepAliveTimeout + IDLE_MARGIN_MS);
  });
  await Promise.race([allClosed, waited]);
  clearTimeout(timer);
  return { closed: allClosed };
}
