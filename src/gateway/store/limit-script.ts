/**
 * The Lua script that counts one call against all of its limits atomically, on the store's clock, so replicas and
 * nodes agree without agreeing on time. Each limit is a fixed window starting at a multiple of its length (UTC):
 * one counter per principal, limit and window (`KEY:START`), expiring with its window. The counters are
 * incremented first and, if any passes its count, decremented again: a refused call counts nowhere.
 *
 * KEYS: one per limit (the window start is appended here, so the store must not be a Redis Cluster).
 * ARGV: window length (ms) and count of each limit, in KEYS' order.
 * Returns `{1, 0, 0}` when the call is counted, else `{0, i, retryAfterMs}` for the limit i (1-based) whose window
 * ends last among those reached.
 */
export const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local keys = {}
local refused, wait = 0, -1
for i = 1, #KEYS do
  local window = tonumber(ARGV[2 * i - 1])
  local start = now - now % window
  local key = KEYS[i] .. ':' .. start
  local count = redis.call('INCR', key)
  if count == 1 then redis.call('PEXPIRE', key, start + window - now + 1000) end
  keys[i] = key
  if count > tonumber(ARGV[2 * i]) and start + window - now > wait then refused, wait = i, start + window - now end
end
if refused == 0 then return {1, 0, 0} end
for i = 1, #keys do redis.call('DECR', keys[i]) end
return {0, refused, wait}
`;
