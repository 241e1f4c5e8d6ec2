export { BodyThread } from './body-thread';
export { ServiceClient } from './service-client';
export { forwardingProblemOf, planServiceCall, placeholderProblemOf, type ServicePlan } from './request-plan';
export type { ServiceOutcome, ServiceErrorCode } from '../../response';
