/**
 * The Lua script that counts one call against all of its limits atomically, on the store's clock, so replicas and
 * nodes agree without agreeing on time. Each limit is a fixed window starting at a multiple of its length (UTC):
 * a hash `{ w: window start, n: calls counted }` per principal and limit, expiring with its window.
 *
 * KEYS: one per limit. ARGV: window length (ms) and count of each limit, in KEYS' order.
 * Returns `{0, i, retryAfterMs, 0}` when limit i is reached (the one whose window ends last among those reached;
 * nothing is counted), else `{1, i, remaining, resetMs}` for the limit with the fewest calls left after this one.
 */
export const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local starts, counts = {}, {}
local refused, wait = 0, -1
for i = 1, n do
  local window = tonumber(ARGV[2 * i - 1])
  local calls = tonumber(ARGV[2 * i])
  local start = now - (now % window)
  local stored = redis.call('HMGET', KEYS[i], 'w', 'n')
  local count = 0
  if tonumber(stored[1]) == start then count = tonumber(stored[2]) or 0 end
  starts[i], counts[i] = start, count
  if count >= calls and start + window - now > wait then refused, wait = i, start + window - now end
end
if refused > 0 then return {0, refused, wait, 0} end
local least, leastLeft, leastReset = 0, -1, 0
for i = 1, n do
  local window = tonumber(ARGV[2 * i - 1])
  local left = tonumber(ARGV[2 * i]) - counts[i] - 1
  local reset = starts[i] + window - now
  redis.call('HSET', KEYS[i], 'w', string.format('%d', starts[i]), 'n', counts[i] + 1)
  redis.call('PEXPIRE', KEYS[i], reset + 1000)
  if leastLeft < 0 or left < leastLeft then least, leastLeft, leastReset = i, left, reset end
end
return {1, least, leastLeft, leastReset}
`;
