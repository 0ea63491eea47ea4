//! [`sort`]: sorts integers whose top bits are uniformly spread (node hashes' prefixes, see
//! `write::store_nodes`) by distributing them into buckets by those bits first.
//!
//! A batch's node hashes are SHA-512 output, so with about one bucket per key most buckets
//! hold none or one, and one counting pass and one scatter pass put nearly every key in place;
//! a bucket with several (equal hashes, a node added more than once) is sorted on its own with
//! `sort_unstable`, so no input makes it quadratic. Sorting the 31,000 keys of the `hotpath`
//! example's 1000-set commit took ~0.45 ms with `sort_unstable` on the project's VM, ~0.27 ms
//! this way.

/// Sorts `keys` ascending, exactly as `keys.sort_unstable()` would. `tmp` and `counts` are
/// scratch space (contents replaced; kept by the caller so that a run of commits does not
/// allocate them afresh).
pub(crate) fn sort(keys: &mut Vec<u64>, tmp: &mut Vec<u64>, counts: &mut Vec<u32>) {
    let n = keys.len();
    if n < SMALL {
        keys.sort_unstable();
        return;
    }
    // About one bucket per key (`bits` is the bit length of `n`), at most 2^19 of them (a 2 MB
    // table of counts, kept in the pool; a larger batch has a few keys per bucket).
    let bits = (usize::BITS - n.leading_zeros()).min(MAX_BITS);
    let shift = u64::BITS - bits;
    let bucket = |k: u64| (k >> shift) as usize;
    // `counts[b + 1]`: keys in bucket `b`; then, summed, `counts[b]`: where bucket `b` starts.
    counts.clear();
    counts.resize((1 << bits) + 1, 0);
    for &k in keys.iter() {
        counts[bucket(k) + 1] += 1;
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    tmp.clear();
    tmp.resize(n, 0);
    // Each key goes to its bucket's next free place; `counts[b]` ends at bucket `b`'s end.
    for &k in keys.iter() {
        let at = &mut counts[bucket(k)];
        tmp[*at as usize] = k;
        *at += 1;
    }
    let mut start = 0;
    for &end in &counts[..1 << bits] {
        let end = end as usize;
        if end - start > 1 {
            tmp[start..end].sort_unstable();
        }
        start = end;
    }
    std::mem::swap(keys, tmp);
}

/// Below this many keys a plain sort is as fast and touches no scratch space.
const SMALL: usize = 256;

/// The most bits a key's bucket is chosen by.
const MAX_BITS: u32 = 19;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the keys (spread, all in a few buckets, repeated), the order is
        /// `sort_unstable`'s.
        #[test]
        fn sorts_as_sort_unstable(
            keys in proptest::collection::vec(any::<u64>(), 0..3000),
            narrow in 0u32..64,
            repeat in 1usize..4,
        ) {
            // `narrow` high bits cleared: keys crowd into the first buckets.
            let mask = u64::MAX.checked_shr(narrow).unwrap_or(0);
            let keys: Vec<u64> = keys
                .iter()
                .flat_map(|&k| std::iter::repeat_n(k & mask, repeat))
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            let mut got = keys;
            sort(&mut got, &mut Vec::new(), &mut vec![7; 3]);
            prop_assert_eq!(got, want);
        }
    }
}
