//! Node hashing: the first 32 bytes of SHA-512 over the encoding, and counters of the work.
//!
//! Every hash the crate computes goes through [`node_hash`], which adds the bytes and the
//! SHA-512 blocks (128 bytes each, padding included) it processed to process-wide counters with
//! a relaxed atomic add. Read them with [`stats`], clear them with [`reset_stats`]: the counters
//! are global, so concurrent tries in other threads add to the same totals.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::compress512;
use sha2::digest::generic_array::GenericArray;

/// A node hash as 64 lowercase hex ASCII bytes: the form used as a storage key and inside
/// parent nodes.
pub(crate) type HexHash = [u8; 64];

/// A node hash as 32 raw bytes: the form used in change logs and the duplicate log.
pub(crate) type RawHash = [u8; 32];

static CALLS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
static BLOCKS: AtomicU64 = AtomicU64::new(0);
static RESUMED: AtomicU64 = AtomicU64::new(0);

/// Totals of the hashing done since the last [`reset_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HashStats {
    /// Nodes hashed.
    pub calls: u64,
    /// Bytes fed to SHA-512.
    pub bytes: u64,
    /// SHA-512 blocks (128 bytes each, padding included) of the messages hashed: the work of
    /// hashing every node from scratch.
    pub blocks: u64,
    /// Of those blocks, how many were not compressed because a remembered midstate of an
    /// earlier encoding with the same leading bytes covered them (see
    /// [`MIDSTATE_MIN_LEN`]).
    pub resumed_blocks: u64,
}

impl HashStats {
    /// The work done between `earlier` and `self`.
    pub fn since(self, earlier: HashStats) -> HashStats {
        HashStats {
            calls: self.calls.saturating_sub(earlier.calls),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            blocks: self.blocks.saturating_sub(earlier.blocks),
            resumed_blocks: self.resumed_blocks.saturating_sub(earlier.resumed_blocks),
        }
    }
}

/// The current totals.
pub fn stats() -> HashStats {
    HashStats {
        calls: CALLS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        blocks: BLOCKS.load(Ordering::Relaxed),
        resumed_blocks: RESUMED.load(Ordering::Relaxed),
    }
}

/// Sets every counter back to zero.
pub fn reset_stats() {
    CALLS.store(0, Ordering::Relaxed);
    BYTES.store(0, Ordering::Relaxed);
    BLOCKS.store(0, Ordering::Relaxed);
    RESUMED.store(0, Ordering::Relaxed);
}

/// SHA-512 blocks needed for a message of `len` bytes: the message, one 0x80 byte and a
/// 16-byte length, rounded up to 128 bytes.
pub fn sha512_blocks(len: u64) -> u64 {
    (len + 17).div_ceil(128)
}

pub(crate) fn count(bytes: u64, blocks: u64) {
    CALLS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(bytes, Ordering::Relaxed);
    BLOCKS.fetch_add(blocks, Ordering::Relaxed);
}

/// The node hash of an encoding: the first 32 bytes of its SHA-512.
pub fn node_hash(encoding: &[u8]) -> [u8; 32] {
    count(encoding.len() as u64, sha512_blocks(encoding.len() as u64));
    sha512_truncated(encoding)
}

/// The first 32 bytes of SHA-512 over `message`, from the compression function directly: full
/// blocks straight from the slice, the padded tail on the stack. Most nodes are one or two
/// blocks, where `Sha512::digest`'s buffering (copy in, pad, drain, 64-byte output) showed in
/// profiles: the `hotpath` example's scenario (c), all hashing and encoding, went from
/// 1.91-2.02 to 1.87-1.91 times its floor.
fn sha512_truncated(message: &[u8]) -> RawHash {
    let full = message.len() / 128;
    let mut state = IV;
    for block in message[..full * 128].chunks_exact(128) {
        compress512(
            &mut state,
            std::slice::from_ref(GenericArray::from_slice(block)),
        );
    }
    finish(state, &message[full * 128..], message.len() as u64)
}

/// Hashing counted locally and added to the totals once, when flushed or dropped: a batch
/// hashes thousands of nodes, and three atomic adds per node cost more than the small ones'
/// padding.
#[derive(Default)]
pub(crate) struct Tally {
    calls: u64,
    bytes: u64,
    blocks: u64,
}

impl Tally {
    /// [`node_hash`], counted in this tally.
    pub(crate) fn node_hash(&mut self, encoding: &[u8]) -> RawHash {
        let len = encoding.len() as u64;
        self.calls += 1;
        self.bytes += len;
        self.blocks += sha512_blocks(len);
        sha512_truncated(encoding)
    }

    /// Adds the tally to the totals and clears it.
    pub(crate) fn flush(&mut self) {
        if self.calls > 0 {
            CALLS.fetch_add(self.calls, Ordering::Relaxed);
            BYTES.fetch_add(self.bytes, Ordering::Relaxed);
            BLOCKS.fetch_add(self.blocks, Ordering::Relaxed);
        }
        self.calls = 0;
        self.bytes = 0;
        self.blocks = 0;
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The node hash of an encoding as 64 lowercase hex characters (a state root, a storage key).
pub fn hash_hex(encoding: &[u8]) -> String {
    let hex = to_hex(&node_hash(encoding));
    // `to_hex` only produces ASCII hex digits.
    hex.iter().map(|&b| char::from(b)).collect()
}

/// Root encodings at least this long are hashed through a per-thread midstate cache: the
/// SHA-512 state after each 128-byte block of the last such encoding is kept, and the next
/// encoding resumes after the blocks it shares with it. SHA-512 processes blocks in order, so
/// the result is identical; a single-key commit typically changes the root's encoding halfway
/// through, which halves the root's hashing.
pub const MIDSTATE_MIN_LEN: usize = 1024;

/// SHA-512's initial hash value (FIPS 180-4, 5.3.5).
const IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// The last large encoding hashed and the SHA-512 state after each of its full blocks.
#[derive(Default)]
struct Midstate {
    encoding: Vec<u8>,
    /// `states[k]` is the state after the first `k` blocks.
    states: Vec<[u64; 8]>,
}

impl Midstate {
    fn hash(&mut self, encoding: &[u8]) -> RawHash {
        let full = encoding.len() / 128;
        let limit = full
            .min(self.encoding.len() / 128)
            .min(self.states.len().saturating_sub(1));
        let mut shared = 0;
        while shared < limit
            && encoding[shared * 128..(shared + 1) * 128]
                == self.encoding[shared * 128..(shared + 1) * 128]
        {
            shared += 1;
        }
        self.states.truncate(shared + 1);
        let mut state = self.states.last().copied().unwrap_or(IV);
        if self.states.is_empty() {
            self.states.push(IV);
        }
        for block in encoding[shared * 128..full * 128].chunks_exact(128) {
            compress512(
                &mut state,
                std::slice::from_ref(GenericArray::from_slice(block)),
            );
            self.states.push(state);
        }
        // The first `shared` blocks are already there.
        self.encoding.truncate(shared * 128);
        self.encoding.extend_from_slice(&encoding[shared * 128..]);
        RESUMED.fetch_add(shared as u64, Ordering::Relaxed);
        finish(state, &encoding[full * 128..], encoding.len() as u64)
    }
}

/// Pads the last partial block and returns the first 32 bytes of the digest.
fn finish(mut state: [u64; 8], tail: &[u8], total_len: u64) -> RawHash {
    let mut last = [0u8; 256];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let end = if tail.len() + 17 <= 128 { 128 } else { 256 };
    last[end - 16..end].copy_from_slice(&(u128::from(total_len) * 8).to_be_bytes());
    for block in last[..end].chunks_exact(128) {
        compress512(
            &mut state,
            std::slice::from_ref(GenericArray::from_slice(block)),
        );
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(8).zip(&state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

thread_local! {
    static ROOT_MIDSTATE: RefCell<Midstate> = RefCell::new(Midstate::default());
}

/// [`node_hash`] for root nodes: encodings of [`MIDSTATE_MIN_LEN`] bytes or more go through
/// this thread's midstate cache. The cache holds the encoding itself and compares bytes, so
/// its result never depends on anything but `encoding`.
pub(crate) fn root_hash(encoding: &[u8]) -> RawHash {
    if encoding.len() < MIDSTATE_MIN_LEN {
        return node_hash(encoding);
    }
    count(encoding.len() as u64, sha512_blocks(encoding.len() as u64));
    ROOT_MIDSTATE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut midstate) => midstate.hash(encoding),
        Err(_) => sha512_truncated(encoding),
    })
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Lowercase hex of a raw hash.
#[inline(never)]
pub(crate) fn to_hex(raw: &RawHash) -> HexHash {
    // A nibble's digit is '0' + n, plus 39 more for n > 9 (the gap to 'a'), taken from the sign
    // of 9 - n: no table look-up per digit, so the loop vectorises. Every new node's hash goes
    // through here; out of line, the 1000-set commit of the `hotpath` example ran ~2% faster
    // than with it inlined into the encoder.
    let digit = |n: u8| b'0' + n + 39 * (9u8.wrapping_sub(n) >> 7);
    let mut out = [0u8; 64];
    for (pair, &b) in out.chunks_exact_mut(2).zip(raw) {
        pair[0] = digit(b >> 4);
        pair[1] = digit(b & 0xf);
    }
    out
}

/// The two lowercase hex characters of a token byte.
pub(crate) fn token_hex(token: u8) -> [u8; 2] {
    [HEX[usize::from(token >> 4)], HEX[usize::from(token & 0xf)]]
}

/// Value of a lowercase hex digit, or `None`.
pub(crate) fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

/// Checks that `text` is 64 lowercase hex characters and returns it as a [`HexHash`].
pub(crate) fn parse_hex_hash(text: &[u8]) -> Option<HexHash> {
    let hash: HexHash = text.try_into().ok()?;
    hash.iter().all(|&c| hex_digit(c).is_some()).then_some(hash)
}

/// Raw bytes of a validated [`HexHash`].
pub(crate) fn hex_to_raw(hex: &HexHash) -> RawHash {
    // A digit's value is its low nibble, plus 9 for a letter ('a'..='f' are 0x61..=0x66, the
    // only digits with bit 6 set): no branch per byte, so the loop vectorises. A storing commit
    // converts every node it replaces for its parent's change-log entry.
    let value = |c: u8| (c & 0xf) + 9 * (c >> 6);
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *byte = value(pair[0]) << 4 | value(pair[1]);
    }
    out
}

/// A [`HexHash`] as a `String`.
pub(crate) fn hex_string(hex: &HexHash) -> String {
    hex.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha512};

    /// The node hash by the `sha2` crate's own digest: what the direct paths must equal.
    fn reference(encoding: &[u8]) -> RawHash {
        let mut out = [0u8; 32];
        out.copy_from_slice(&Sha512::digest(encoding)[..32]);
        out
    }

    #[test]
    fn block_counts_include_padding() {
        assert_eq!(sha512_blocks(0), 1);
        assert_eq!(sha512_blocks(111), 1);
        assert_eq!(sha512_blocks(112), 2);
        assert_eq!(sha512_blocks(128), 2);
        assert_eq!(sha512_blocks(239), 2);
        assert_eq!(sha512_blocks(240), 3);
    }

    #[test]
    fn hex_helpers_agree_with_the_hex_crate() {
        let raw = node_hash(b"abc");
        let hex = to_hex(&raw);
        assert_eq!(hex_string(&hex), hex::encode(raw));
        assert_eq!(hex_to_raw(&hex), raw);
        assert_eq!(parse_hex_hash(&hex), Some(hex));
        assert_eq!(parse_hex_hash(&hex[..63]), None);
        assert_eq!(
            parse_hex_hash(hex::encode(raw).to_uppercase().as_bytes()),
            None
        );
        assert_eq!(&token_hex(0xa5), b"a5");
        for byte in 0..=u8::MAX {
            let hex: HexHash = hex::encode([byte; 32]).into_bytes().try_into().expect("64");
            assert_eq!(hex_to_raw(&hex), [byte; 32], "{byte:#04x}");
            assert_eq!(to_hex(&[byte; 32]), hex, "{byte:#04x}");
        }
    }

    #[test]
    fn midstate_hashing_matches_sha512() {
        let mut m = Midstate::default();
        let mut enc: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        for len in [
            0, 1, 111, 112, 127, 128, 129, 239, 240, 255, 256, 1024, 3000, 5000,
        ] {
            assert_eq!(m.hash(&enc[..len]), reference(&enc[..len]), "length {len}");
        }
        // Change bytes at various offsets: results stay exact while prefixes are reused.
        for (i, at) in [4000usize, 10, 2500, 4999, 0, 128, 127]
            .into_iter()
            .enumerate()
        {
            enc[at] ^= 0x5a;
            let len = 5000 - i * 100;
            assert_eq!(m.hash(&enc[..len]), reference(&enc[..len]), "edit at {at}");
            assert_eq!(
                m.hash(&enc[..len]),
                reference(&enc[..len]),
                "repeat at {at}"
            );
        }
        enc.insert(300, 1);
        assert_eq!(m.hash(&enc), reference(&enc));
        assert_eq!(root_hash(&enc), reference(&enc));
    }

    proptest::proptest! {
        /// A chain of encodings, each an edit of the previous one, hashes exactly.
        #[test]
        fn midstate_chain_matches_sha512(
            start in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..3000),
            edits in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>(), 0u8..3),
                1..12,
            ),
        ) {
            let mut m = Midstate::default();
            let mut enc = start;
            proptest::prop_assert_eq!(m.hash(&enc), reference(&enc));
            for (at, byte, kind) in edits {
                match kind {
                    0 if !enc.is_empty() => {
                        let i = at.index(enc.len());
                        enc[i] = byte;
                    }
                    1 => enc.insert(at.index(enc.len() + 1), byte),
                    _ if !enc.is_empty() => {
                        enc.remove(at.index(enc.len()));
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(m.hash(&enc), reference(&enc));
            }
        }
    }

    proptest::proptest! {
        /// The direct hash is SHA-512's, truncated, at every length around the block edges.
        #[test]
        fn node_hash_is_truncated_sha512(
            enc in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..700),
        ) {
            proptest::prop_assert_eq!(node_hash(&enc), reference(&enc));
        }
    }

    #[test]
    fn counters_grow_with_work() {
        let before = stats();
        node_hash(&[0u8; 300]);
        let d = stats().since(before);
        // Other tests may hash concurrently: assert lower bounds only.
        assert!(d.calls >= 1 && d.bytes >= 300 && d.blocks >= 3);
    }
}
