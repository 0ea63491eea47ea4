//! A commit without put-if-absent checks, sent as one `MULTI`/`EXEC` transaction: the same
//! changes the commit script applies (`HSET`/`HDEL` on the value HASH, the changed keys appended
//! to the pending LIST), without running Lua.
//!
//! Redis runs the queued commands of an `EXEC` back to back, with no other client's command in
//! between, and none of them if the connection is lost before `EXEC`: a commit is still
//! all-or-nothing for every reader and one round trip. The script is kept for commits that must
//! check keys first (`WriteTx::insert`), which a transaction cannot do without a round trip of
//! its own. On this project's 2-core VM the server spent ~113 µs per commit script against
//! ~20 µs for its `HSET`, the rest being the interpreter turning every argument into a Lua
//! string.

use redis::{Pipeline, Value};

use super::committed::{unexpected, Shared};
use super::conn::Lease;
use super::overlay::TableOverlay;
use super::scripts;
use crate::error::KvResult;

/// Keys per `HSET`/`HDEL`/`RPUSH`, so that no command grows without bound on a huge commit.
const CHUNK: usize = 512;

/// A pending list longer than this and than twice its table is folded into the key ZSET, as the
/// commit script does.
const SYNC_AFTER: i64 = 1024;

/// Where one table's replies sit in the `EXEC` reply: its last `RPUSH` and its `HLEN`.
struct Replies {
    table: usize,
    listed: usize,
    size: usize,
}

/// Queues `table`'s changes on `pipe`; `n` counts the replies queued so far.
fn queue(
    pipe: &mut Pipeline,
    shared: &Shared,
    i: usize,
    table: &TableOverlay,
    n: &mut usize,
) -> Replies {
    let keys = &shared.keys[i];
    let mut listed = 0;
    let puts: Vec<(&[u8], &[u8])> = table
        .changes
        .iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| (k.as_slice(), v)))
        .collect();
    for chunk in puts.chunks(CHUNK) {
        let hset = pipe.cmd("HSET").arg(keys.values.as_slice());
        for (k, v) in chunk {
            hset.arg(*k).arg(*v);
        }
        let rpush = pipe.cmd("RPUSH").arg(keys.pending.as_slice());
        for (k, _) in chunk {
            rpush.arg(*k);
        }
        listed = *n + 1;
        *n += 2;
    }
    let deletes: Vec<&[u8]> = table
        .changes
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.as_slice())
        .collect();
    for chunk in deletes.chunks(CHUNK) {
        pipe.cmd("HDEL").arg(keys.values.as_slice()).arg(chunk);
        pipe.cmd("RPUSH").arg(keys.pending.as_slice()).arg(chunk);
        listed = *n + 1;
        *n += 2;
    }
    pipe.cmd("HLEN").arg(keys.values.as_slice());
    *n += 1;
    Replies {
        table: i,
        listed,
        size: *n - 1,
    }
}

/// Applies the changes of the `changed` tables (none with keys that must be absent) in one
/// `MULTI`/`EXEC`, then folds any pending list that outgrew its table into the key ZSET (a
/// second round trip, once per ~twice the table's size in changes).
pub(super) fn commit(
    shared: &Shared,
    lease: &Lease<'_>,
    overlay: &[TableOverlay],
    changed: &[usize],
) -> KvResult<()> {
    let mut pipe = redis::pipe();
    pipe.atomic();
    let mut n = 0;
    let replies: Vec<Replies> = changed
        .iter()
        .map(|&i| queue(&mut pipe, shared, i, &overlay[i], &mut n))
        .collect();
    let values: Vec<Value> = lease.run("commit", |con| pipe.query(con))?;
    if values.len() != n {
        return Err(unexpected("commit", &Value::Array(values)));
    }
    let int = |at: usize| match &values[at] {
        Value::Int(v) => Ok(*v),
        other => Err(unexpected("commit", other)),
    };
    for r in replies {
        let (listed, size) = (int(r.listed)?, int(r.size)?);
        if listed > SYNC_AFTER && listed > 2 * size {
            let keys = &shared.keys[r.table];
            let script = &shared.scripts.sync;
            let cmd = scripts::evalsha(script, &[&keys.values, &keys.order, &keys.pending]);
            // The commit is applied whatever happens here: a failed fold (a lost connection)
            // leaves the list long, and the next commit that finds it so folds it.
            let _ = lease.run("commit (key order)", |con| scripts::run(script, &cmd, con));
        }
    }
    Ok(())
}
