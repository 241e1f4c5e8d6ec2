import { Interner } from './detached-string';

/** One refused call as the page lists it: no argument values exist in the audit, so none can appear here. */
export interface RefusalEntry {
  readonly tsMs: number;
  readonly gateway: string;
  readonly tool: string;
  readonly message: string;
  readonly clientName: string | null;
  readonly clientVersion: string | null;
}

/**
 * The most recent refused calls of each agent, by time (not by arrival: two replicas' files are read one after
 * the other). Bounded twice: `perAgent` entries per agent, `maxAgents` agents (later ones are not tracked).
 */
export class RecentRefusals {
  private readonly byAgent = new Map<string | null, RefusalEntry[]>();
  private readonly strings = new Interner();
  /** Refusals of agents beyond `maxAgents`, not kept. */
  untracked = 0;

  constructor(
    private readonly perAgent: number,
    private readonly maxAgents: number,
  ) {}

  /** @param agent the agent's key (`agentKey`: its kind and name), `null` for calls without a principal */
  add(agent: string | null, entry: RefusalEntry): void {
    let list = this.byAgent.get(agent);
    if (list === undefined) {
      if (this.byAgent.size >= this.maxAgents) {
        this.untracked++;
        return;
      }
      list = [];
      this.byAgent.set(this.strings.internNullable(agent), list);
    }
    // Sorted oldest first; most records arrive in time order, so this is usually a push.
    if (list.length >= this.perAgent && entry.tsMs <= list[0].tsMs) return;
    let at = list.length;
    while (at > 0 && list[at - 1].tsMs > entry.tsMs) at--;
    const s = this.strings;
    list.splice(at, 0, {
      tsMs: entry.tsMs,
      gateway: s.intern(entry.gateway),
      tool: s.intern(entry.tool),
      message: s.intern(entry.message),
      clientName: s.internNullable(entry.clientName),
      clientVersion: s.internNullable(entry.clientVersion),
    });
    if (list.length > this.perAgent) list.shift();
  }

  /** The agent's refusals at or after `sinceMs`, newest first, at most `limit`. */
  recent(agent: string | null, sinceMs: number, limit: number): RefusalEntry[] {
    const list = this.byAgent.get(agent) ?? [];
    const out: RefusalEntry[] = [];
    for (let i = list.length - 1; i >= 0 && out.length < limit; i--) {
      if (list[i].tsMs >= sinceMs) out.push(list[i]);
    }
    return out;
  }

  /** Forgets entries older than `sinceMs` (the retention window). */
  prune(sinceMs: number): void {
    for (const [agent, list] of this.byAgent) {
      let drop = 0;
      while (drop < list.length && list[drop].tsMs < sinceMs) drop++;
      if (drop === list.length) this.byAgent.delete(agent);
      else if (drop > 0) list.splice(0, drop);
    }
  }
}
