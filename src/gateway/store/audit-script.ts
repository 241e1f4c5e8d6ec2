/**
 * The Lua script that appends a batch of one replica's audit records to that replica's stream in the store. Each
 * record carries an id the replica chose (`MS-SEQ`, increasing), so a batch sent again after a timeout adds only
 * what the first attempt did not: the store refuses an id at or below the stream's last, and that refusal is
 * skipped here. The replica's stream is named in an index (stream → node) that the dashboard reads.
 *
 * KEYS: the replica's stream, the gateway's index.
 * ARGV: the node, the stream's length bound, the seconds both keys live after the last append, then id and record
 * pairs. Returns the number of records added and the stream's last id; any other refusal (the key of another type,
 * a store out of memory) fails the whole batch, so that it is sent again rather than lost in silence.
 */
export const AUDIT_SCRIPT = `
local added = 0
for i = 4, #ARGV, 2 do
  local reply = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], ARGV[i], 'r', ARGV[i + 1])
  if type(reply) == 'table' and reply.err ~= nil then
    if not string.find(reply.err, 'equal or smaller', 1, true) then return redis.error_reply(reply.err) end
  else
    added = added + 1
  end
end
redis.call('HSET', KEYS[2], KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
return {added, last[1] and last[1][1] or ''}
`;
