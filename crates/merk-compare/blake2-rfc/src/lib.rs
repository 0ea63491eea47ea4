//! The part of [blake2-rfc](https://crates.io/crates/blake2-rfc) 0.2.18's API that merk 2.0.1
//! uses, over RustCrypto's [`blake2`]: [`blake2b::Blake2b`] (`new`, `update`, `finalize`) and
//! [`blake2b::Blake2bResult::as_bytes`]. It stands in for blake2-rfc in crates/merk-compare
//! (a `[patch.crates-io]`), because blake2-rfc's `simd_asm` feature, which merk asks for, no
//! longer compiles on any Rust since 1.78. The digests are BLAKE2b's (RFC 7693), unkeyed; the
//! tests check them against the RFC's vector and others.

/// BLAKE2b, as blake2-rfc's `blake2b` module names it.
pub mod blake2b {
    use blake2::digest::{Update, VariableOutput};
    use blake2::Blake2bVar;

    /// The longest output BLAKE2b gives, in bytes.
    pub const MAX_OUTPUT_BYTES: usize = 64;

    /// A BLAKE2b state with an output length fixed when it is made.
    #[derive(Debug, Clone)]
    pub struct Blake2b {
        state: Blake2bVar,
        len: usize,
    }

    /// A finished digest.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Blake2bResult {
        bytes: Vec<u8>,
    }

    impl Blake2bResult {
        /// The digest's bytes (as long as the output length asked for).
        pub fn as_bytes(&self) -> &[u8] {
            &self.bytes
        }

        /// The output length, in bytes.
        pub fn len(&self) -> usize {
            self.bytes.len()
        }

        /// Whether the digest is empty (never: the output length is at least 1).
        pub fn is_empty(&self) -> bool {
            self.bytes.is_empty()
        }
    }

    impl AsRef<[u8]> for Blake2bResult {
        fn as_ref(&self) -> &[u8] {
            &self.bytes
        }
    }

    impl Blake2b {
        /// An unkeyed BLAKE2b state giving `nn` bytes of output.
        ///
        /// # Panics
        ///
        /// When `nn` is 0 or over 64, as blake2-rfc's `Blake2b::new` does (merk passes 20).
        pub fn new(nn: usize) -> Self {
            assert!(
                (1..=MAX_OUTPUT_BYTES).contains(&nn),
                "BLAKE2b's output length is 1 to 64 bytes, not {nn}"
            );
            let state = Blake2bVar::new(nn).expect("an output length of 1 to 64 bytes is valid");
            Blake2b { state, len: nn }
        }

        /// Adds `data` to what is hashed.
        pub fn update(&mut self, data: &[u8]) {
            self.state.update(data);
        }

        /// The digest of everything added.
        pub fn finalize(self) -> Blake2bResult {
            let mut bytes = vec![0; self.len];
            self.state
                .finalize_variable(&mut bytes)
                .expect("the buffer is the state's output length");
            Blake2bResult { bytes }
        }
    }

    /// The `nn`-byte digest of `data` in one call, as blake2-rfc's `blake2b::blake2b` without
    /// a key.
    ///
    /// # Panics
    ///
    /// As [`Blake2b::new`].
    pub fn blake2b(nn: usize, data: &[u8]) -> Blake2bResult {
        let mut state = Blake2b::new(nn);
        state.update(data);
        state.finalize()
    }
}
