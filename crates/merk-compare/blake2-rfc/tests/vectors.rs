//! The shim's digests against published BLAKE2b values.

use blake2_rfc::blake2b::{blake2b, Blake2b};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// RFC 7693, Appendix A: BLAKE2b-512("abc").
#[test]
fn rfc_7693_appendix_a() {
    let digest = blake2b(64, b"abc");
    assert_eq!(
        hex(digest.as_bytes()),
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
         7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
    );
}

/// BLAKE2b-160 of the empty string, merk's output length (Python's hashlib.blake2b with
/// digest_size=20 gives the same).
#[test]
fn twenty_byte_output_of_nothing() {
    let digest = Blake2b::new(20).finalize();
    assert_eq!(
        hex(digest.as_bytes()),
        "3345524abf6bbe1809449224b5972c41790b6cf2"
    );
}

/// Input given in pieces hashes as the same input given at once, and the output length is
/// part of the parameters (BLAKE2b-160("abc") is not a prefix of BLAKE2b-512("abc")).
#[test]
fn pieces_and_lengths() {
    let mut state = Blake2b::new(20);
    state.update(b"a");
    state.update(b"");
    state.update(b"bc");
    let pieces = state.finalize();
    assert_eq!(pieces, blake2b(20, b"abc"));
    assert_eq!(
        hex(pieces.as_bytes()),
        "384264f676f39536840523f284921cdc68b6846b"
    );
    assert_ne!(pieces.as_bytes(), &blake2b(64, b"abc").as_bytes()[..20]);
}

#[test]
#[should_panic(expected = "1 to 64 bytes")]
fn an_output_over_64_bytes_is_refused() {
    let _ = Blake2b::new(65);
}
