export { callTool, type CallReply, type CallServices } from './call-pipeline';
export { buildToolSet, type Tool, type ToolSet } from './tool-set';
