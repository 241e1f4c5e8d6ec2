/**
 * The 2026-07-28 era's answers that depend only on the config: built once per gateway state (a reload makes a new
 * state, hence new answers), on first use.
 */
import { DEFAULT_TOOLS_LIST_PAGE_SIZE, DEFAULT_TOOLS_LIST_TTL_MS } from '../../../config';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../../../package-info';
import type { GatewayState } from '../../state/gateway-state';
import { ToolPages } from '../../tools/tool-pages';
import { scopedLists } from '../../tools/tool-set';
import { MetaKey } from './protocol';
import { discoverResult, toolsListResult, type ServerInfo } from './results';

/** `server/discover` and `tools/list` results (JSON text) and the server info every modern result carries. */
export interface ModernAnswers {
  readonly serverInfo: ServerInfo;
  /** `{"io.modelcontextprotocol/serverInfo":…}`: the `_meta` of a `tools/call` result. */
  readonly serverInfoMetaJson: string;
  readonly discoverJson: string;
  /**
   * The `tools/list` page a cursor names (`undefined`: the first) for a caller with these scopes (`undefined`:
   * unrestricted), or `undefined` for a cursor this list did not issue.
   */
  toolsListPageFor(scopes: ReadonlySet<string> | undefined, cursor: string | undefined): string | undefined;
}

const answers = new WeakMap<GatewayState, ModernAnswers>();

/** The answers of `state`'s config, serialized once. */
export function modernAnswersOf(state: GatewayState): ModernAnswers {
  let made = answers.get(state);
  if (made === undefined) {
    made = modernAnswers(state);
    answers.set(state, made);
  }
  return made;
}

/**
 * `cacheScope` is `public` only without authentication: with tokens (or scopes) the list may depend on who asks.
 * The pages themselves are serialized as they are first asked for.
 */
function modernAnswers({ config, toolSet }: GatewayState): ModernAnswers {
  const g = config.gateway;
  const serverInfo: ServerInfo = { name: PACKAGE_NAME, title: g.name, version: PACKAGE_VERSION };
  const cache = {
    ttlMs: g.tools_list_ttl_ms ?? DEFAULT_TOOLS_LIST_TTL_MS,
    cacheScope: g.auth === 'none' ? 'public' : 'private',
  } as const;
  const pageSize = g.tools_list_page_size ?? DEFAULT_TOOLS_LIST_PAGE_SIZE;
  const lists = scopedLists(
    toolSet.tools,
    (visible) =>
      new ToolPages(
        toolSet.listing.filter((t) => visible(t.name)),
        pageSize,
        g.name,
        (tools, nextCursor) => JSON.stringify(toolsListResult(tools, serverInfo, cache, nextCursor)),
      ),
  );
  return {
    serverInfo,
    serverInfoMetaJson: JSON.stringify({ [MetaKey.SERVER_INFO]: serverInfo }),
    discoverJson: JSON.stringify(discoverResult(serverInfo, cache)),
    toolsListPageFor: (scopes, cursor) => lists.for(scopes).page(cursor),
  };
}
