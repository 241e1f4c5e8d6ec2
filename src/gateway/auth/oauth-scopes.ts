/**
 * Which scopes a call needs and whether a caller has them: one rule for OAuth callers and static tokens alike.
 */

/**
 * The scopes a tool call needs: the gateway-wide ones (`auth.oauth.scopes`) followed by the tool's own
 * (`required_scopes`), without repeats.
 */
export function requiredScopes(gatewayScopes: readonly string[] = [], toolScopes: readonly string[] = []): string[] {
  return [...new Set([...gatewayScopes, ...toolScopes])];
}

/**
 * The required scopes the caller lacks, in the order required (empty: the call is allowed). Every required scope
 * is needed; a scope is matched exactly (no prefixes, no wildcards).
 * @example
 * missingScopes(['crm.read', 'crm.write'], new Set(['crm.read'])); // ['crm.write']
 */
export function missingScopes(required: readonly string[], granted: ReadonlySet<string>): string[] {
  return required.filter((scope) => !granted.has(scope));
}

/** Whether a caller with `granted` scopes may call a tool needing `required` (what `tools/list` filters on). */
export function hasScopes(required: readonly string[], granted: ReadonlySet<string>): boolean {
  return required.every((scope) => granted.has(scope));
}

/** The scope `GET /metrics` needs from a token that carries scopes (a static token without scopes needs none). */
export const METRICS_SCOPE = 'metrics:read';
