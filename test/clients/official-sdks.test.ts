/**
 * docs/clients.md for the official SDKs (1.x `@modelcontextprotocol/sdk`, 2.x `@modelcontextprotocol/client`, both
 * dev dependencies), run against a served gateway in every `npm test`.
 */
import { REPO_NODE_MODULES } from './clients-cache';
import { describeRecipes } from './recipes';

describe('docs/clients.md: the official SDKs against a served gateway', function () {
  this.timeout(60_000);
  describeRecipes(['Official SDK 1.x', 'Official SDK 2.x'], REPO_NODE_MODULES);
});
