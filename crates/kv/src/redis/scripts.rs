//! The Lua scripts the backend runs on the server, and how they are called.
//!
//! A script runs atomically: no other command runs while it does, so a commit is all-or-nothing
//! for every client, and one scan page is a consistent cut. Scripts are sent by hash
//! (`EVALSHA`) and loaded (`SCRIPT LOAD`) only when the server does not know them yet.
//!
//! Arguments are passed as `ARGV` and walked with loops; `unpack`, which is limited by Lua's C
//! stack (about 8000 values) while a commit may carry far more, only ever gets a slice of a few
//! hundred.

use redis::{Cmd, Connection, RedisError, Script, ServerErrorKind, Value};

/// The Lua function every script that touches a table's key order shares: `sync(values, order,
/// pending)` brings the key ZSET `order` up to date with the value HASH `values` for every key
/// listed in the LIST `pending` (present in the hash: `ZADD`, absent: `ZREM`), then empties the
/// list. Idempotent, so a key listed twice or already in order is harmless.
macro_rules! sync_lua {
    () => {
        r"
local CHUNK = 256
local function sync(values, order, pending)
  local n = redis.call('LLEN', pending)
  for first = 0, n - 1, CHUNK do
    local keys = redis.call('LRANGE', pending, first, first + CHUNK - 1)
    local add, del = {}, {}
    for i = 1, #keys do
      if redis.call('HEXISTS', values, keys[i]) == 1 then
        add[#add + 1] = 0
        add[#add + 1] = keys[i]
      else
        del[#del + 1] = keys[i]
      end
    end
    if #add > 0 then redis.call('ZADD', order, unpack(add)) end
    if #del > 0 then redis.call('ZREM', order, unpack(del)) end
  end
  if n > 0 then redis.call('DEL', pending) end
end
"
    };
}

/// Applies a transaction: checks that every put-if-absent key is absent and that every
/// precondition holds, then applies all puts and deletes, or applies nothing and names the
/// clashing key.
///
/// `KEYS`: for each changed table `j`, `KEYS[3j-2]` is its value HASH, `KEYS[3j-1]` its key
/// ZSET and `KEYS[3j]` its pending LIST.
/// `ARGV`: for each table in the same order, `n_check n_require n_put n_delete`, then `n_check`
/// keys that must be absent, `n_require` triples `key kind value` (kind `a`: the key must be
/// absent, value empty; kind `v`: the key must hold exactly `value`), `n_put` key/value pairs,
/// `n_delete` keys.
/// Returns `{}` when applied, `{j, key}` when `key` of table `j` already exists, `{j, key,
/// found}` when a precondition on `key` of table `j` failed (`found`: `present`, `absent` or
/// `other`).
///
/// Puts go to the HASH and deletes leave it with variadic `HSET`/`HDEL` calls of up to 256 keys;
/// the changed keys are appended to the pending LIST, and the ordered ZSET is brought up to date
/// from it only when a scan needs it, or here once the list outgrows twice the table (so it stays
/// bounded). Keeping the ZSET in step at every commit cost the server more than the rest of the
/// commit (a skiplist insert per node; the trie itself never scans), and one `redis.call` costs
/// the server far more than one more argument to it. `unpack` only ever gets a bounded slice,
/// never all of `ARGV` (see the module docs).
const COMMIT: &str = concat!(
    sync_lua!(),
    r"
local plans = {}
local pos = 1
for j = 1, #KEYS / 3 do
  local values = KEYS[3 * j - 2]
  local n_check = tonumber(ARGV[pos])
  local n_require = tonumber(ARGV[pos + 1])
  local n_put = tonumber(ARGV[pos + 2])
  local n_delete = tonumber(ARGV[pos + 3])
  pos = pos + 4
  for i = pos, pos + n_check - 1 do
    if redis.call('HEXISTS', values, ARGV[i]) == 1 then
      return {tostring(j), ARGV[i]}
    end
  end
  pos = pos + n_check
  for i = pos, pos + 3 * (n_require - 1), 3 do
    local held = redis.call('HGET', values, ARGV[i])
    if ARGV[i + 1] == 'a' then
      if held then return {tostring(j), ARGV[i], 'present'} end
    elseif not held then
      return {tostring(j), ARGV[i], 'absent'}
    elseif held ~= ARGV[i + 2] then
      return {tostring(j), ARGV[i], 'other'}
    end
  end
  pos = pos + 3 * n_require
  plans[j] = {pos, n_put, n_delete}
  pos = pos + 2 * n_put + n_delete
end
for j = 1, #KEYS / 3 do
  local values = KEYS[3 * j - 2]
  local pending = KEYS[3 * j]
  local p = plans[j][1]
  local n_put = plans[j][2]
  local n_delete = plans[j][3]
  local listed = 0
  for first = 0, n_put - 1, CHUNK do
    local n = math.min(CHUNK, n_put - first)
    local from = p + 2 * first
    redis.call('HSET', values, unpack(ARGV, from, from + 2 * n - 1))
    local keys = {}
    for i = 0, n - 1 do
      keys[i + 1] = ARGV[from + 2 * i]
    end
    listed = redis.call('RPUSH', pending, unpack(keys))
  end
  p = p + 2 * n_put
  for first = 0, n_delete - 1, CHUNK do
    local n = math.min(CHUNK, n_delete - first)
    redis.call('HDEL', values, unpack(ARGV, p + first, p + first + n - 1))
    listed = redis.call('RPUSH', pending, unpack(ARGV, p + first, p + first + n - 1))
  end
  if listed > 1024 and listed > 2 * redis.call('HLEN', values) then
    sync(values, KEYS[3 * j - 1], pending)
  end
end
return {}
"
);

/// Brings a table's key ZSET up to date with its pending LIST: after a commit sent as a
/// `MULTI`/`EXEC` transaction (see `writer`) once the list outgrew twice the table.
///
/// `KEYS[1]` is the value HASH, `KEYS[2]` the key ZSET, `KEYS[3]` the pending LIST.
const SYNC: &str = concat!(
    sync_lua!(),
    r"
sync(KEYS[1], KEYS[2], KEYS[3])
return {}
"
);

/// One page of an ordered scan.
///
/// `KEYS[1]` is the key ZSET, `KEYS[2]` the value HASH, `KEYS[3]` the pending LIST (brought into
/// the ZSET first, see `sync_lua`); `ARGV` = `min max limit budget`, with `min`/`max` in
/// `ZRANGEBYLEX` syntax. Returns `{done, last, k1, v1, k2, v2, ...}`: the entries of up to
/// `limit` keys, stopping early once `budget` bytes are collected (always at least one entry);
/// `last` is the last key examined, `done` is `1` when the range holds no more keys.
const SCAN_PAGE: &str = concat!(
    sync_lua!(),
    r"
sync(KEYS[2], KEYS[1], KEYS[3])
local keys = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', 0, tonumber(ARGV[3]))
local budget = tonumber(ARGV[4])
local out = {'1', ''}
local bytes = 0
for i = 1, #keys do
  out[2] = keys[i]
  local value = redis.call('HGET', KEYS[2], keys[i])
  if value then
    out[#out + 1] = keys[i]
    out[#out + 1] = value
    bytes = bytes + #keys[i] + #value
    if bytes >= budget and i < #keys then
      out[1] = '0'
      return out
    end
  end
end
if #keys >= tonumber(ARGV[3]) then
  out[1] = '0'
end
return out
"
);

/// The number of entries a table would have after the writer's pending changes.
///
/// `KEYS[1]` is the value HASH; `ARGV` = pairs `key flag`, flag `1` for a pending put and `0` for
/// a pending delete.
const COUNT_WITH_PENDING: &str = r"
local n = redis.call('HLEN', KEYS[1])
for i = 1, #ARGV, 2 do
  local exists = redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1
  local put = ARGV[i + 1] == '1'
  if put and not exists then
    n = n + 1
  elseif exists and not put then
    n = n - 1
  end
end
return n
";

/// The backend's scripts, hashed once per store.
#[derive(Debug)]
pub(crate) struct Scripts {
    pub commit: Script,
    pub sync: Script,
    pub scan_page: Script,
    pub count_with_pending: Script,
}

impl Scripts {
    pub fn new() -> Scripts {
        Scripts {
            commit: Script::new(COMMIT),
            sync: Script::new(SYNC),
            scan_page: Script::new(SCAN_PAGE),
            count_with_pending: Script::new(COUNT_WITH_PENDING),
        }
    }

    /// Loads every script into the server's cache, so the first commit is sent only once.
    pub fn load(&self, con: &mut Connection) -> Result<(), RedisError> {
        for script in [
            &self.commit,
            &self.sync,
            &self.scan_page,
            &self.count_with_pending,
        ] {
            script.load(con)?;
        }
        Ok(())
    }
}

/// An `EVALSHA` command for `script` with `keys`; the caller appends `ARGV`.
pub(crate) fn evalsha(script: &Script, keys: &[&[u8]]) -> Cmd {
    let mut cmd = redis::cmd("EVALSHA");
    cmd.arg(script.get_hash()).arg(keys.len());
    for key in keys {
        cmd.arg(*key);
    }
    cmd
}

/// Runs an `EVALSHA` built by [`evalsha`], loading the script and retrying once if the server's
/// script cache does not hold it (a restarted or flushed server).
pub(crate) fn run(script: &Script, cmd: &Cmd, con: &mut Connection) -> Result<Value, RedisError> {
    match cmd.query::<Value>(con) {
        Err(e) if e.kind() == redis::ErrorKind::Server(ServerErrorKind::NoScript) => {
            script.load(con)?;
            cmd.query(con)
        }
        other => other,
    }
}
