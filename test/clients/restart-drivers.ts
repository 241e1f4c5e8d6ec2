/**
 * One script per client for the restart test: it connects the way the client's recipe in docs/clients.md does,
 * looks a customer up, prints `restart now` and waits for a line on stdin (while the test restarts the gateway),
 * then looks the customer up again on the same connection and exits.
 */
import { SNIPPET_URL } from '../helpers/snippets';

/** Reads one stdin line, then lets the process exit. */
const PAUSE = `
import { createInterface } from 'node:readline';
const pause = async () => {
  console.log('restart now');
  const rl = createInterface({ input: process.stdin });
  await new Promise((resolve) => rl.once('line', resolve));
  rl.close();
};
`;

/** The body common to every driver, around `connect`, `lookUp` (a customer's name) and `close`. */
const around = (connect: string): string => `${PAUSE}
${connect}
console.log('before', await lookUp('C-0001'));
await pause();
console.log('after', await lookUp('C-0002'));
await close();
`;

const AUTH = '{ Authorization: `Bearer ${process.env.MCP_TOKEN}` }';

/** The restart driver of each client, by the heading of its section in docs/clients.md. */
export const RESTART_DRIVERS: Readonly<Record<string, string>> = {
  LangChain: around(`
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
const client = new MultiServerMCPClient({ mcpServers: { support: { url: '${SNIPPET_URL}', headers: ${AUTH} } } });
const getCustomer = (await client.getTools()).find((t) => t.name === 'get_customer');
const lookUp = async (id) => {
  const message = await getCustomer.invoke({ id: '1', name: 'get_customer', args: { customer_id: id }, type: 'tool_call' });
  return message.artifact[0].data.name;
};
const close = () => client.close();
`),
  'Vercel AI SDK': around(`
import { createMCPClient } from '@ai-sdk/mcp';
const client = await createMCPClient({ transport: { type: 'http', url: '${SNIPPET_URL}', headers: ${AUTH} } });
const tools = await client.tools();
const lookUp = async (id) =>
  (await tools.get_customer.execute({ customer_id: id }, { toolCallId: '1', messages: [] })).structuredContent.name;
const close = () => client.close();
`),
  'mcp-remote': around(`
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const client = new Client({ name: 'desktop', version: '1.0.0' });
await client.connect(new StdioClientTransport({
  command: 'mcp-remote',
  args: ['${SNIPPET_URL}', '--header', 'Authorization:\${MCP_AUTH}'],
  env: { ...process.env, MCP_AUTH: \`Bearer \${process.env.MCP_TOKEN}\` },
  stderr: 'ignore',
}));
const lookUp = async (id) =>
  (await client.callTool({ name: 'get_customer', arguments: { customer_id: id } })).structuredContent.name;
const close = () => client.close();
`),
  'Official SDK 1.x': around(`
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL('${SNIPPET_URL}'), { requestInit: { headers: ${AUTH} } }));
const lookUp = async (id) =>
  (await client.callTool({ name: 'get_customer', arguments: { customer_id: id } })).structuredContent.name;
const close = () => client.close();
`),
  'Official SDK 2.x': around(`
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const client = new Client({ name: 'my-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new StreamableHTTPClientTransport(new URL('${SNIPPET_URL}'), { requestInit: { headers: ${AUTH} } }));
const lookUp = async (id) =>
  (await client.callTool({ name: 'get_customer', arguments: { customer_id: id } })).structuredContent.name;
const close = () => client.close();
`),
};
