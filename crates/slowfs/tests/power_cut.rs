//! Power-loss mode on a real mount of the slowfs binary: a cut (writing `cut` to
//! `.slowfs-control`) leaves the backing directory with exactly what was fsynced, the mount
//! refuses changes afterwards, and metadata counts as synced.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;

use common::Mounted;

#[test]
fn a_power_cut_keeps_what_was_synced_and_drops_the_rest() {
    let Some(m) = Mounted::start(&["--power-loss"]) else {
        return;
    };
    let synced = m.mnt().join("synced.bin");
    let unsynced = m.mnt().join("unsynced.bin");
    {
        let mut f = fs::File::create(&synced).expect("create");
        f.write_all(&[1u8; 8192]).expect("write");
        f.sync_all().expect("fsync");
        // Overwrite the middle and grow the file, without a sync: both must be undone.
        f.write_all_at(&[2u8; 100], 4000).expect("overwrite");
        f.write_all_at(&[3u8; 4096], 8192).expect("append");
        // Reads see the unsynced data before the cut.
        let mut back = Vec::new();
        fs::File::open(&synced)
            .and_then(|mut r| r.read_to_end(&mut back))
            .expect("read back");
        assert_eq!(back.len(), 12288);
        assert_eq!(back[4000], 2);
    }
    fs::write(&unsynced, b"never synced").expect("write unsynced");
    m.control("cut");
    assert!(
        fs::write(m.mnt().join("after.bin"), b"x").is_err(),
        "a cut mount refuses new files"
    );
    // The cut has already restored the backing files.
    let backing = m.backing().to_path_buf();
    assert_eq!(
        fs::read(backing.join("synced.bin")).unwrap(),
        vec![1u8; 8192]
    );
    // Metadata counts as synced: the file exists, its unsynced data is gone.
    assert_eq!(fs::read(backing.join("unsynced.bin")).unwrap(), b"");
    assert!(!backing.join("after.bin").exists());
    let _ = m.finish();
}

#[test]
fn the_control_file_exists_only_in_power_loss_mode() {
    let Some(m) = Mounted::start(&[]) else {
        return;
    };
    assert!(!m.mnt().join(".slowfs-control").exists());
    let _ = m.finish();
}
