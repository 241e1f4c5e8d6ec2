export { ServiceClient } from './service-client';
export { planServiceCall, placeholderProblemOf, type ServicePlan } from './request-plan';
export type { ServiceOutcome, ServiceErrorCode } from './service-outcome';
