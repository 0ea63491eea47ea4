//! A damaged tail of `redis-aof`'s append-only file, cut before the server starts.
//!
//! `appendfsync always` fsyncs every commit's `MULTI`/`EXEC` before the reply, and one writer
//! commits at a time, so after a power cut at most the last transaction of the newest
//! incremental AOF can be unsynced, and only it may be torn or have a hole (a later write of
//! it persisted without an earlier one). Redis 7.0 loads a tail cut short
//! (`aof-load-truncated yes`, the default) but refuses a tail with a hole or garbled framing
//! ("Bad file format reading the append only file"), and the store would never open again
//! without `redis-check-aof --fix` by hand.
//!
//! Before starting the server this module reads the newest incremental file named in the
//! manifest as RESP commands. When a command is malformed, it looks for a complete, well-formed
//! transaction after the damage: if there is one, the damage is not in the trailing record but
//! in something acknowledged, and the store refuses to open ([`KvError::Corrupt`], the file
//! untouched); if there is none, the damaged trailing transaction (unacknowledged) is cut off at
//! the end of the last complete one, the cut bytes kept in `<file>.torn`, and a line says so in
//! the server's log. A torn record whose framing survived (bytes inside a value lost) still
//! parses and is loaded: the AOF has no per-record checksum to tell.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::error::{KvError, KvResult};

/// The manifest Redis 7 keeps in the AOF directory.
const MANIFEST: &str = "appendonly.aof.manifest";
/// The opening of a `MULTI` command in RESP.
const MULTI: &[u8] = b"*1\r\n$5\r\nMULTI\r\n";

/// What was done to the tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TailCut {
    /// The incremental file cut.
    pub file: PathBuf,
    /// Its length before.
    pub from: u64,
    /// Its length now: the end of the last complete transaction.
    pub to: u64,
}

/// One RESP command parsed at some position: where it ends and its first word, upper-cased.
fn command(buf: &[u8], at: usize) -> Option<(usize, Vec<u8>)> {
    let (n, mut pos) = number(buf, at, b'*')?;
    if n == 0 {
        return None;
    }
    let mut name = Vec::new();
    for i in 0..n {
        let (len, start) = number(buf, pos, b'$')?;
        let end = start.checked_add(len)?;
        if buf.get(end..end + 2)? != b"\r\n" {
            return None;
        }
        if i == 0 {
            name = buf[start..end].to_ascii_uppercase();
        }
        pos = end + 2;
    }
    Some((pos, name))
}

/// `<tag><decimal>\r\n` at `at`: the number and the position after it.
fn number(buf: &[u8], at: usize, tag: u8) -> Option<(usize, usize)> {
    if *buf.get(at)? != tag {
        return None;
    }
    let rest = buf.get(at + 1..)?;
    let digits = rest.iter().take(20).position(|&b| b == b'\r')?;
    if digits == 0 || rest.get(digits + 1) != Some(&b'\n') {
        return None;
    }
    let text = std::str::from_utf8(&rest[..digits]).ok()?;
    Some((text.parse().ok()?, at + 1 + digits + 2))
}

/// Parses from `at` to the end of `buf`: `Ok(end of the last complete transaction or command
/// outside one)` when everything parses, else `Err((that end, where parsing failed))`.
fn scan(buf: &[u8], at: usize) -> Result<usize, (usize, usize)> {
    let mut pos = at;
    let mut good = at;
    let mut in_multi = false;
    while pos < buf.len() {
        let Some((end, name)) = command(buf, pos) else {
            return Err((good, pos));
        };
        match name.as_slice() {
            b"MULTI" => in_multi = true,
            b"EXEC" => in_multi = false,
            _ => {}
        }
        pos = end;
        if !in_multi {
            good = pos;
        }
    }
    Ok(good)
}

/// Whether a complete transaction (`MULTI` ... `EXEC`, every command well-formed) starts
/// somewhere after `from`.
fn complete_transaction_after(buf: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = buf.get(at..)?.windows(MULTI.len()).position(|w| w == MULTI) {
        let start = at + i;
        let mut pos = start;
        while let Some((end, name)) = command(buf, pos) {
            pos = end;
            if name == b"EXEC" {
                return Some(start);
            }
        }
        at = start + 1;
    }
    None
}

/// The newest incremental AOF the manifest names (a plain name in `aof_dir`), if any.
fn newest_incr(aof_dir: &Path) -> KvResult<Option<String>> {
    let path = aof_dir.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KvError::io("read", &path, e)),
    };
    let mut best: Option<(u64, String)> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let field = |k: &str| {
            words
                .iter()
                .position(|w| *w == k)
                .and_then(|i| words.get(i + 1))
        };
        let (Some(file), Some(seq), Some(&"i")) = (field("file"), field("seq"), field("type"))
        else {
            continue;
        };
        let Ok(seq) = seq.parse::<u64>() else {
            continue;
        };
        if file.contains('/') || file.starts_with('.') {
            continue;
        }
        if best.as_ref().is_none_or(|(s, _)| seq > *s) {
            best = Some((seq, file.to_string()));
        }
    }
    Ok(best.map(|(_, f)| f))
}

/// Opens `path` without following a link.
fn open_nofollow(path: &Path, write: bool) -> KvResult<File> {
    OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| KvError::io("open", path, e))
}

/// Cuts a damaged trailing transaction off the newest incremental AOF in `aof_dir` (see the
/// module docs); `None` when there was nothing to cut.
///
/// # Errors
/// [`KvError::Corrupt`] when the damage is followed by a complete transaction (acknowledged
/// data is damaged), [`KvError::Io`] when the files cannot be read or written.
pub(crate) fn cut_damaged_tail(aof_dir: &Path) -> KvResult<Option<TailCut>> {
    let Some(name) = newest_incr(aof_dir)? else {
        return Ok(None);
    };
    let path = aof_dir.join(&name);
    let mut buf = Vec::new();
    match open_nofollow(&path, false) {
        Ok(mut f) => f
            .read_to_end(&mut buf)
            .map_err(|e| KvError::io("read", &path, e))?,
        Err(_) if !path.exists() => return Ok(None),
        Err(e) => return Err(e),
    };
    let (good, bad) = match scan(&buf, 0) {
        Ok(_) => return Ok(None),
        Err(pair) => pair,
    };
    if let Some(later) = complete_transaction_after(&buf, bad) {
        return Err(KvError::Corrupt {
            backend: "redis",
            path,
            detail: format!(
                "the append-only file is damaged at byte {bad}, before a complete transaction \
                 at byte {later}: acknowledged commits are damaged (redis-check-aof shows it)"
            ),
        });
    }
    let torn = aof_dir.join(format!("{name}.torn"));
    let mut keep = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&torn)
        .map_err(|e| KvError::io("create", &torn, e))?;
    keep.write_all(&buf[good..])
        .and_then(|()| keep.sync_all())
        .map_err(|e| KvError::io("write", &torn, e))?;
    let file = open_nofollow(&path, true)?;
    file.set_len(good as u64)
        .and_then(|()| file.sync_all())
        .map_err(|e| KvError::io("truncate", &path, e))?;
    Ok(Some(TailCut {
        file: path,
        from: buf.len() as u64,
        to: good as u64,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(words: &[&[u8]]) -> Vec<u8> {
        let mut out = format!("*{}\r\n", words.len()).into_bytes();
        for w in words {
            out.extend(format!("${}\r\n", w.len()).as_bytes());
            out.extend_from_slice(w);
            out.extend(b"\r\n");
        }
        out
    }

    fn txn(value: &[u8]) -> Vec<u8> {
        let mut out = cmd(&[b"MULTI"]);
        out.extend(cmd(&[b"HSET", b"t", b"k", value]));
        out.extend(cmd(&[b"EXEC"]));
        out
    }

    #[test]
    fn scanning_finds_the_end_of_the_last_whole_transaction() {
        let mut buf = cmd(&[b"SELECT", b"0"]);
        let first = buf.len();
        buf.extend(txn(&[7; 600]));
        let second = buf.len();
        assert_eq!(scan(&buf, 0), Ok(second));
        let mut holed = buf.clone();
        holed.extend(txn(&[8; 600]));
        holed[second + 20..second + 200].fill(0);
        assert_eq!(scan(&holed, 0), Err((second, second + 15)));
        assert_eq!(complete_transaction_after(&holed, second + 15), None);
        let mut middle = buf.clone();
        middle[first + 20..first + 40].fill(0);
        middle.extend(txn(&[9; 10]));
        let (_, bad) = scan(&middle, 0).unwrap_err();
        assert_eq!(complete_transaction_after(&middle, bad), Some(second));
    }
}
