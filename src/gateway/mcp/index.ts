export { handleMcpPost } from './post-endpoint';
export { broadcast, broadcastComment, openNotificationStream } from './notification-streams';
export { requireSession } from './require-session';
export { SessionStore, type ClientInfo, type McpSession } from './session-store';
export type { McpContext, McpReply } from './reply';
export { errorResponseJson, RpcCode, type RequestId } from './jsonrpc';
export { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './protocol-version';
