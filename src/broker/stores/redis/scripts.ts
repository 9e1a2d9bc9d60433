/** The Redis store's Lua scripts (each one atomic step, one round trip) and their SHA1s for EVALSHA. */
import { createHash } from 'node:crypto';

// The value's JSON: sent on its own only when the row does not hold it verbatim (ARGV[tail] empty); else cut out
// of the row, `{"value":` + json + tail characters, so the largest argument crosses the wire once.
const jsonOf = (json: number, tail: number): string =>
  `local json = ARGV[${json}] if ARGV[${tail}] ~= '' then json = string.sub(ARGV[1], 10, -1 - tonumber(ARGV[${tail}])) end`;
// KEYS: the row, the pending hash, the log. One round trip each, and the row, index and event move together.
export const PUT_QUESTION = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then ${jsonOf(4, 6)}
  redis.call('HSET', KEYS[2], ARGV[3], json) redis.call('RPUSH', KEYS[3], ARGV[5]) return 1 end return 0`;
// KEYS[3]: the answer row; a question that has one is not rewritten (abandon loses to an answer).
export const UPDATE_QUESTION = `if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then redis.call('HSET', KEYS[2], ARGV[3], ARGV[4]) end return 1`;
// KEYS[4]: the question row; with ARGV[7] = '1' (a respond) the claim needs it stored and not abandoned. A JSON
// row without the word abandoned cannot be, so only the others are decoded to look. ARGV[9]: how many of the
// channel's subscribers are the caller's own (0 or 1); the caller wakes its own waiters, so with no other
// subscriber nothing is published (receiving its own message back cost each cycle about a tenth of its time).
export const CLAIM_ANSWER = `if ARGV[7] == '1' then
    local raw = redis.call('GET', KEYS[4]) if not raw then return 0 end
    if string.sub(raw, 1, 1) ~= '{' or string.find(raw, 'abandoned', 1, true) then
      local ok, row = pcall(cjson.decode, raw)
      if not ok or type(row) ~= 'table' or type(row.value) ~= 'table' or row.value.state == 'abandoned' then return 0 end
    end
  end
  if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then ${jsonOf(5, 8)}
  redis.call('HDEL', KEYS[2], ARGV[3]) redis.call('RPUSH', KEYS[3], ARGV[6])
  if redis.call('PUBSUB', 'NUMSUB', ARGV[4])[2] > tonumber(ARGV[9]) then redis.call('PUBLISH', ARGV[4], json) end
  return 1 end return 0`;

export const PUT_AND_WAKE = `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('PUBLISH', ARGV[3], ARGV[4]) return 1 end return 0`;

// Retention: pops log entries from the head while they are past their keep-until (entries go in roughly in
// expiry order, so the head is the oldest); bounded per call so one trim never blocks Redis for long.
export const TRIM_LOG = `local popped = 0
  while popped < 1000 do
    local head = redis.call('LINDEX', KEYS[1], 0)
    if not head then break end
    local ok, entry = pcall(cjson.decode, head)
    if not ok or type(entry) ~= 'table' or not entry._expires or tonumber(entry._expires) >= tonumber(ARGV[1]) then break end
    redis.call('LPOP', KEYS[1]) popped = popped + 1
  end return popped`;

const shas = new Map<string, string>();
export const scriptSha = (script: string): string => {
  let sha = shas.get(script);
  if (!sha) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
};
