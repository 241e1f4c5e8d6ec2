/**
 * The Lua script that counts calls against their limits atomically, on the store's clock, so replicas and nodes
 * agree without agreeing on time. Each limit is a fixed window starting at a multiple of its length (UTC): one
 * counter per principal, limit and window (`KEY:START`), expiring with its window. The calls of one invocation
 * (those a gateway received in one turn of its event loop) are counted one after the other, in order, exactly as
 * if each were its own invocation: a call is admitted when every one of its counters stays within its count, and a
 * refused call counts nowhere. Each counter is read once and written once per invocation, and a run of consecutive
 * calls with the same limits is counted as one step: the first calls that fit are admitted, the rest refused.
 *
 * KEYS: the batch's distinct counters (a limit's key and window), each once (the window start is appended here, so
 * the store must not be a Redis Cluster).
 * ARGV: the window length (ms) of each of KEYS, in order; then for each run of calls: its number of calls, its
 * number of limits and, per limit, the index of its counter in KEYS (1-based) and its count.
 * Returns five numbers per run with calls not admitted (nothing when all were): the position (1-based, in the
 * batch) of the first call not admitted and how many follow it to the run's end, then `0, i, retryAfterMs` for
 * their limit i (1-based) whose window ends last among those reached, or `-1, i, 0` when limit i's counter holds
 * something else than a count (written by another program): those calls count nowhere and fail alone.
 */
export const LIMIT_SCRIPT = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local n = #KEYS
local name, left, count, fresh, broken, added = {}, {}, {}, {}, {}, {}
for j = 1, n do
  local window = tonumber(ARGV[j])
  local start = now - now % window
  name[j], left[j], added[j] = KEYS[j] .. ':' .. start, start + window - now, 0
  local held = redis.pcall('GET', name[j])
  if held == false then
    count[j], fresh[j] = 0, true
  elseif type(held) == 'string' and string.match(held, '^%-?%d+$') then
    count[j] = tonumber(held)
  else
    broken[j] = true
  end
end
local out = {}
local a, first = n + 1, 1
while a <= #ARGV do
  local k, m = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local fit, bad = k, 0
  for i = 1, m do
    local j, calls = tonumber(ARGV[a + 2 * i]), tonumber(ARGV[a + 2 * i + 1])
    if bad == 0 then
      if broken[j] then
        bad = i
      elseif calls - count[j] < fit then
        fit = math.max(calls - count[j], 0)
      end
    end
  end
  if bad > 0 then
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5] = first, k, -1, bad, 0
  else
    local refused, wait = 0, -1
    for i = 1, m do
      local j, calls = tonumber(ARGV[a + 2 * i]), tonumber(ARGV[a + 2 * i + 1])
      count[j], added[j] = count[j] + fit, added[j] + fit
      if count[j] + 1 > calls and left[j] > wait then refused, wait = i, left[j] end
    end
    if fit < k then
      out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5] = first + fit, k - fit, 0, refused, wait
    end
  end
  first = first + k
  a = a + 2 + 2 * m
end
for j = 1, n do
  if added[j] > 0 then
    redis.call('INCRBY', name[j], added[j])
    if fresh[j] then redis.call('PEXPIRE', name[j], left[j] + 1000) end
  end
end
return out
`;
