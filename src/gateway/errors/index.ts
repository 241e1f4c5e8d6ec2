export { HttpError } from './http-error';
export { errorResponseJson, RpcCode, type RequestId } from './jsonrpc';
