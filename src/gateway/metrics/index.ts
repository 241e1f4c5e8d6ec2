export { GatewayMetrics, OTHER_PRINCIPAL_LABEL, UNKNOWN_TOOL_LABEL } from './gateway-metrics';
