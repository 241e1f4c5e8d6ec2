/**
 * The Lua script that counts calls against their limits atomically, on the store's clock, so replicas and nodes
 * agree without agreeing on time. Each limit is a fixed window starting at a multiple of its length (UTC): one
 * counter per principal, limit and window (`KEY:START`), expiring with its window. A call's counters are
 * incremented first and, if any passes its count, decremented again: a refused call counts nowhere. The calls of
 * one invocation (those a gateway received in one turn of its event loop) are counted one after the other, in
 * order, exactly as if each were its own invocation.
 *
 * KEYS: each call's limits' keys, call after call (the window start is appended here, so the store must not be a
 * Redis Cluster).
 * ARGV: for each call, its number of limits, then the window length (ms) and count of each, in KEYS' order.
 * Returns three numbers per call: `1, 0, 0` when the call is counted, else `0, i, retryAfterMs` for its limit i
 * (1-based) whose window ends last among those reached, or `-1, i, 0` when limit i's counter holds something else
 * than a count (written by another program): that call counts nowhere and fails alone, the others are counted.
 */
export const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local out = {}
local k, a = 1, 1
while a <= #ARGV do
  local n = tonumber(ARGV[a])
  a = a + 1
  local keys = {}
  local refused, wait, broken = 0, -1, 0
  for i = 1, n do
    local window, calls = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    local start = now - now % window
    local key = KEYS[k] .. ':' .. start
    k = k + 1
    if broken == 0 then
      local count = redis.pcall('INCR', key)
      if type(count) ~= 'number' then
        broken = i
      else
        if count == 1 then redis.call('PEXPIRE', key, start + window - now + 1000) end
        keys[#keys + 1] = key
        if count > calls and start + window - now > wait then refused, wait = i, start + window - now end
      end
    end
  end
  if broken > 0 or refused > 0 then
    for i = 1, #keys do redis.call('DECR', keys[i]) end
  end
  if broken > 0 then
    out[#out + 1], out[#out + 2], out[#out + 3] = -1, broken, 0
  elseif refused > 0 then
    out[#out + 1], out[#out + 2], out[#out + 3] = 0, refused, wait
  else
    out[#out + 1], out[#out + 2], out[#out + 3] = 1, 0, 0
  end
end
return out
`;
