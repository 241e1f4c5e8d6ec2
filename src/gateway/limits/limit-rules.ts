/**
 * A config's `rate_limits`, compiled once per config: the limits that count a call of each tool (those of every
 * tool first, then the tool's own), each with its store key part and the message that names it.
 */
import { RATE_LIMIT_WINDOWS, type RateLimitConfig, type RateLimitWindow } from '../../config';

/** One limit, ready to count. */
export interface Limit {
  /** Unique per gateway (two limits never share a window and tools): `minute:*`, `minute:tool:create_ticket`. */
  readonly id: string;
  readonly calls: number;
  readonly per: RateLimitWindow;
  readonly windowMs: number;
  /** @default - every tool, counted together */
  readonly tool?: string;
  /** What a refused call's error says, e.g. `Rate limit reached: 60 calls per minute for create_ticket`. */
  readonly message: string;
}

const NONE: readonly Limit[] = [];

/** The limits of one config, by tool. */
export class LimitRules {
  private readonly all: readonly Limit[];
  private readonly byTool = new Map<string, readonly Limit[]>();

  constructor(limits: readonly RateLimitConfig[] = []) {
    const compiled = limits.map(compile);
    this.all = compiled.filter((l) => l.tool === undefined);
    for (const limit of compiled) {
      if (limit.tool === undefined) continue;
      this.byTool.set(limit.tool, [...(this.byTool.get(limit.tool) ?? this.all), limit]);
    }
  }

  /** Whether any limit is set (a gateway without one does no counting at all). */
  get any(): boolean {
    return this.all.length > 0 || this.byTool.size > 0;
  }

  /** The limits a call of `tool` counts against (empty: none). */
  forTool(tool: string): readonly Limit[] {
    return this.byTool.get(tool) ?? (this.all.length > 0 ? this.all : NONE);
  }
}

function compile(config: RateLimitConfig): Limit {
  const { calls, per, tool } = config;
  return {
    id: tool === undefined ? `${per}:*` : `${per}:tool:${tool}`,
    calls,
    per,
    windowMs: RATE_LIMIT_WINDOWS[per],
    ...(tool === undefined ? {} : { tool }),
    message: `Rate limit reached: ${calls} ${calls === 1 ? 'call' : 'calls'} per ${per}${tool === undefined ? '' : ` for ${tool}`}`,
  };
}
