import { DashboardError } from './dashboard-error';

/** The windows the page and the API offer: their length and the step of their time series. */
export const WINDOWS = {
  '1h': { minutes: 60, stepMinutes: 1 },
  '24h': { minutes: 24 * 60, stepMinutes: 10 },
  '7d': { minutes: 7 * 24 * 60, stepMinutes: 60 },
} as const;

export type WindowName = keyof typeof WINDOWS;

export const DEFAULT_WINDOW: WindowName = '1h';

/**
 * Reads a `window` query parameter: absent means 1 h.
 * @throws DashboardError 400 naming the allowed values and (a short form of) the value given
 */
export function parseWindow(value: string | null): WindowName {
  if (value === null) return DEFAULT_WINDOW;
  if (Object.hasOwn(WINDOWS, value)) return value as WindowName;
  const shown = value.length > 20 ? `${value.slice(0, 20)}…` : value;
  throw new DashboardError(400, `window: must be one of 1h, 24h, 7d (got ${JSON.stringify(shown)})`);
}
