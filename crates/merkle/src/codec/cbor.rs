//! CBOR primitives of the node format: the major types nodes use, `null`, and the canonical
//! length header, including the quirk of the encoder Transact uses (lengths in
//! 65,536..=1,048,575 take the 8-byte form).

/// CBOR major type of byte strings.
pub(super) const MAJOR_BYTES: u8 = 2;
/// CBOR major type of text strings.
pub(super) const MAJOR_TEXT: u8 = 3;
/// CBOR major type of maps.
pub(super) const MAJOR_MAP: u8 = 5;
/// CBOR `null`.
pub(super) const NULL: u8 = 0xf6;

/// Appends a CBOR header of major type `major` announcing `len`, in the canonical form
/// (including the 65,536..=1,048,575 quirk).
pub(super) fn write_header(out: &mut Vec<u8>, major: u8, len: u64) {
    let m = major << 5;
    match len {
        0..=23 => out.push(m | len as u8),
        24..=0xff => out.extend_from_slice(&[m | 24, len as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        // The quirk: Transact's encoder skips the 4-byte form for these lengths.
        0x1_0000..=0xf_ffff => {
            out.push(m | 27);
            out.extend_from_slice(&len.to_be_bytes());
        }
        0x10_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend_from_slice(&(len as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend_from_slice(&len.to_be_bytes());
        }
    }
}

/// Size in bytes of the canonical header for `len`.
pub(super) fn header_len(len: u64) -> usize {
    match len {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xf_ffff => 9,
        0x10_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_headers_follow_the_quirk() {
        let cases: &[(u64, &[u8])] = &[
            (0, &[0x40]),
            (23, &[0x57]),
            (24, &[0x58, 24]),
            (255, &[0x58, 0xff]),
            (256, &[0x59, 0x01, 0x00]),
            (65_535, &[0x59, 0xff, 0xff]),
            (65_536, &[0x5b, 0, 0, 0, 0, 0, 1, 0, 0]),
            (1_048_575, &[0x5b, 0, 0, 0, 0, 0, 0x0f, 0xff, 0xff]),
            (1_048_576, &[0x5a, 0, 0x10, 0, 0]),
            (u64::from(u32::MAX), &[0x5a, 0xff, 0xff, 0xff, 0xff]),
            (u64::from(u32::MAX) + 1, &[0x5b, 0, 0, 0, 1, 0, 0, 0, 0]),
        ];
        for &(len, expected) in cases {
            let mut out = Vec::new();
            write_header(&mut out, MAJOR_BYTES, len);
            assert_eq!(out, expected, "length {len}");
            assert_eq!(header_len(len), expected.len(), "length {len}");
        }
        // The same quirk applies to text strings and maps.
        let mut out = Vec::new();
        write_header(&mut out, MAJOR_TEXT, 70_000);
        assert_eq!(out[0], 0x7b);
        out.clear();
        write_header(&mut out, MAJOR_MAP, 70_000);
        assert_eq!(out[0], 0xbb);
    }
}
