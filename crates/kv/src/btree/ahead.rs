//! [`Ahead`]: a batch's `(key, value)` pairs taken a few pairs ahead of the copying, each one's
//! bytes prefetched as it is taken, so that copying a batch into entries waits on memory for
//! each pair no longer.
//!
//! A large batch's keys and values lie wherever its caller keeps them, and in key order they
//! are scattered: the trie's new nodes lie in one buffer in the order they were encoded, and it
//! writes them in hash order, so every pair is a cache miss or two. Copied one after the other,
//! each copy waited for its miss (the `hotpath` example's one commit of 1,000 sets: ~31,000
//! entries, their copying as long as a fifth of the commit's hashing). Taken [`DISTANCE`]
//! pairs early and prefetched, the misses overlap with the copies of the pairs before them.
//!
//! The one `unsafe` (the prefetch instruction) passes Miri under Stacked and Tree Borrows:
//! `MIRIFLAGS=-Zmiri-disable-isolation PROPTEST_CASES=2 cargo +nightly miri test -p
//! triebench-kv --lib --no-default-features btree::ahead` (add `-Zmiri-tree-borrows`);
//! `scripts/test.sh` runs the fixed case, not the proptest (minutes under Miri).

use std::collections::VecDeque;

/// How many pairs ahead of the copy a pair is taken and prefetched: enough to cover a miss to
/// memory with the copies of the pairs in between (each a few dozen nanoseconds).
const DISTANCE: usize = 8;

/// The fewest pairs a batch has for `put_many` to copy it through [`Ahead`]: a small batch's
/// bytes were likely just written by its caller and are in cache.
pub(super) const AHEAD_MIN: usize = 256;

/// Of a value longer than this, only the first bytes are prefetched: a long copy streams, and
/// the processor's own prefetching follows it.
const PREFETCH_MAX: usize = 256;

/// The pairs of `inner`, yielded in order, each taken and prefetched [`DISTANCE`] pairs before
/// it is yielded.
pub(super) struct Ahead<'a, I> {
    inner: I,
    taken: VecDeque<(&'a [u8], &'a [u8])>,
}

impl<'a, I: Iterator<Item = (&'a [u8], &'a [u8])>> Ahead<'a, I> {
    /// Wraps `inner`, taking its first pairs at once.
    pub(super) fn new(inner: I) -> Self {
        let mut ahead = Ahead {
            inner,
            taken: VecDeque::with_capacity(DISTANCE + 1),
        };
        while ahead.taken.len() < DISTANCE && ahead.pull() {}
        ahead
    }

    /// Takes the next pair of `inner`, prefetching its bytes; false once `inner` is done.
    fn pull(&mut self) -> bool {
        let Some((key, value)) = self.inner.next() else {
            return false;
        };
        prefetch(key);
        prefetch(&value[..value.len().min(PREFETCH_MAX)]);
        self.taken.push_back((key, value));
        true
    }
}

impl<'a, I: Iterator<Item = (&'a [u8], &'a [u8])>> Iterator for Ahead<'a, I> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        self.pull();
        self.taken.pop_front()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.inner.size_hint();
        let n = self.taken.len();
        (
            low.saturating_add(n),
            high.and_then(|high| high.checked_add(n)),
        )
    }
}

/// Size of a cache line on the processors prefetched for.
const LINE: usize = 64;

/// Asks the processor to bring `bytes` into its caches (every line they touch); a hint only,
/// which changes nothing a program can observe but its speed. A no-op off x86-64.
#[inline(always)]
fn prefetch(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = bytes.as_ptr() as usize;
        let Some(last) = bytes.len().checked_sub(1) else {
            return;
        };
        // The first byte of each line the bytes touch: from the line holding the first byte
        // to the one holding the last.
        let mut line = start & !(LINE - 1);
        let end = start + last;
        while line <= end {
            let at = line.max(start) - start;
            // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (the
            // target's baseline). It is a hint: it neither reads nor writes memory as far as
            // the program can tell, never faults, and `at` is within `bytes` anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().add(at).cast::<i8>()) };
            line += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values spanning several cache lines, longer than what is prefetched, and empty keys
    /// and values (a small fixed case, which Miri runs in seconds).
    #[test]
    fn prefetches_lines_of_long_and_empty_pairs() {
        let bytes: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let pairs = [
            (&bytes[..0], &bytes[..0]),
            (&bytes[1..33], &bytes[63..200]),
            (&bytes[..0], &bytes[5..1000]),
            (&bytes[64..65], &bytes[..0]),
        ];
        let out: Vec<_> = Ahead::new(pairs.iter().copied()).collect();
        assert_eq!(out, pairs);
    }

    proptest! {
        /// The pairs come out as they went in, all of them, in order, whatever their number
        /// and lengths (values longer than what is prefetched included), and the size hint is
        /// exact for an exact inner iterator.
        #[test]
        fn yields_the_pairs_in_order(
            pairs in proptest::collection::vec(
                (proptest::collection::vec(any::<u8>(), 0..40),
                 proptest::collection::vec(any::<u8>(), 0..600)),
                0..40,
            ),
        ) {
            let inner = pairs.iter().map(|(k, v)| (&k[..], &v[..]));
            let mut ahead = Ahead::new(inner);
            let mut out = Vec::new();
            loop {
                let left = pairs.len() - out.len();
                prop_assert_eq!(ahead.size_hint(), (left, Some(left)));
                let Some((k, v)) = ahead.next() else { break };
                out.push((k.to_vec(), v.to_vec()));
            }
            prop_assert_eq!(ahead.next(), None);
            prop_assert_eq!(out, pairs);
        }
    }
}
