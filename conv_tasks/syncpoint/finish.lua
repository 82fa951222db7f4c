-- A node of a traversal has finished: satisfy the SyncPoint of every one of its successors in
-- one atomic step (a script runs alone), hand on what that set in motion, and settle, here and
-- without a task, the successors that have nothing to do.
--
-- KEYS[1]  the finished node's own point        KEYS[2]  the traversal's heartbeat key
-- ARGV[1]  the key prefix of the traversal's points, "<prefix>:sp:{<traversal>}:"
-- ARGV[2]  the finished node                    ARGV[3]  its output, JSON
-- ARGV[4]  time to live in milliseconds         ARGV[5]  the name of the stack's own point
-- ARGV[6…] successors the caller declares settled: they have nothing to do, so when their
--          point completes they pass their predecessors' failures on from here.
--
-- Every point of the traversal shares its {traversal} hash tag, so the points reached from
-- KEYS[1] live in the same cluster slot as it does.
--
-- Point fields (written by SyncPointStore.create, then here):
--   p:<pred>   1 for each predecessor the point waits for
--   d:<pred>   that predecessor's output, once it has satisfied the point
--   remaining  how many predecessors are still missing
--   completer  the predecessor whose call brought remaining to 0
--   next       JSON list of the node's successors
--   settled    1 when the node has nothing to do
--   done       1 once the node itself has finished (called this script, or was settled)
--   started    1 once the node's action is under way (heartbeat.lua, when it first polls)
--
-- A predecessor counts once however often it calls. A repeated call hands a successor on
-- again only if this node completed it and it has neither finished nor started since (the
-- first call's worker may have died before it enqueued it; a node that has started keeps
-- itself going through its own messages), so a duplicate costs at most the node's out-degree.
--
-- Returns {outcome, stack input or false, missing points as a JSON list, node1, input1, …}:
-- outcome is "ok", "repeat" (this node had finished before) or "missing" (no point for this
-- node: the traversal is over or Redis lost it); each input is {"<pred>": output, …} as JSON.

local prefix, me, output = ARGV[1], ARGV[2], ARGV[3]
local ttl, stack = tonumber(ARGV[4]), ARGV[5]
local own = KEYS[1]

if redis.call('EXISTS', own) == 0 then
  return {'missing', false, '[]'}
end
local outcome = 'ok'
if redis.call('HSETNX', own, 'done', '1') == 0 then
  outcome = 'repeat'
end
for i = 6, #ARGV do
  local key = prefix .. ARGV[i]
  if redis.call('EXISTS', key) == 1 then
    redis.call('HSET', key, 'settled', '1')
  end
end

-- The outputs of every predecessor of a point, as one JSON object, without decoding them.
local function inputs(key)
  local parts = {}
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'd:' then
      parts[#parts + 1] = cjson.encode(string.sub(fields[i], 3)) .. ':' .. fields[i + 1]
    end
  end
  return '{' .. table.concat(parts, ',') .. '}'
end

-- What a settled node hands on: its predecessors' failures, or nothing.
local function failures(key)
  local found, seen = {}, {}
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local value = fields[i + 1]
    if string.sub(fields[i], 1, 2) == 'd:' and string.find(value, '"failed"', 1, true) then
      local ok, decoded = pcall(cjson.decode, value)
      if ok and type(decoded) == 'table' and type(decoded.failed) == 'table' then
        for _, failure in ipairs(decoded.failed) do
          if type(failure) == 'string' and not seen[failure] then
            seen[failure] = true
            found[#found + 1] = failure
          end
        end
      end
    end
  end
  if #found == 0 then
    return '{}'
  end
  return cjson.encode({failed = found})
end

local reply = {outcome, false, '[]'}
local missing = {}
local work, depth = {{me, output}}, 1
while depth > 0 do
  local node, out = work[depth][1], work[depth][2]
  work[depth] = nil
  depth = depth - 1
  local listed = redis.call('HGET', prefix .. node, 'next')
  local successors = listed and cjson.decode(listed) or {}
  for _, succ in ipairs(successors) do
    local key = prefix .. succ
    if redis.call('EXISTS', key) == 0 then
      missing[#missing + 1] = succ
    else
      local ready = false
      if redis.call('HSETNX', key, 'd:' .. node, out) == 1 then
        ready = redis.call('HINCRBY', key, 'remaining', -1) == 0
        if ready then
          redis.call('HSET', key, 'completer', node)
        end
      elseif redis.call('HGET', key, 'completer') == node then
        -- Satisfied before by this very node. A settled successor is walked again so that
        -- whatever it completed is handed on again too; it costs no task.
        ready = (redis.call('HEXISTS', key, 'done') == 0
            and redis.call('HEXISTS', key, 'started') == 0)
          or redis.call('HEXISTS', key, 'settled') == 1
      end
      redis.call('PEXPIRE', key, ttl)
      if ready then
        if succ == stack then
          reply[2] = inputs(key)
        elseif redis.call('HEXISTS', key, 'settled') == 1 then
          redis.call('HSET', key, 'done', '1')
          depth = depth + 1
          work[depth] = {succ, failures(key)}
        else
          reply[#reply + 1] = succ
          reply[#reply + 1] = inputs(key)
        end
      end
    end
  end
end

if #missing > 0 then
  reply[3] = cjson.encode(missing)
end
redis.call('PEXPIRE', own, ttl)
-- The server's clock, not the caller's: workers on many hosts compare these.
local now = redis.call('TIME')
redis.call('SET', KEYS[2], now[1] .. '.' .. string.format('%06d', tonumber(now[2])), 'PX', ttl)
return reply
