//! `BackendSpec`: one profile name plus a directory opens the right backend, for every profile
//! this build includes; bad names and missing directories are clear errors.

use triebench_kv::{BackendSpec, KvError, KvResult, Profile, ReadTx, Store, StoreVisitor, WriteTx};

/// Commits one entry and reads it back, returning the store's table names.
struct RoundTrip;

impl StoreVisitor for RoundTrip {
    type Output = KvResult<Vec<String>>;

    fn visit<S: Store + 'static>(self, store: S) -> KvResult<Vec<String>> {
        let t = store.table("data")?;
        let mut w = store.writer()?;
        w.insert(t, b"key", b"value")?;
        w.commit()?;
        let value = store.reader()?.get(t, b"key")?;
        assert_eq!(value.as_deref(), Some(&b"value"[..]));
        Ok(store.table_names().to_vec())
    }
}

#[test]
fn every_enabled_profile_opens_by_name_in_its_directory() {
    for profile in Profile::enabled() {
        let dir = tempfile::tempdir().unwrap();
        let spec = BackendSpec::parse(profile.name(), Some(dir.path().join("store"))).unwrap();
        assert_eq!(spec.profile, profile);
        let names = spec
            .open(&["data", "other"], RoundTrip)
            .unwrap_or_else(|e| panic!("{profile}: {e}"))
            .unwrap_or_else(|e| panic!("{profile}: {e}"));
        assert_eq!(names, ["data", "other"]);
        if profile.needs_dir() {
            let written = std::fs::read_dir(dir.path().join("store")).unwrap().count();
            assert!(written > 0, "{profile} wrote nothing in its directory");
        }
    }
}

#[test]
fn unknown_profile_lists_the_valid_names() {
    let err = BackendSpec::parse("sqlite", None).unwrap_err();
    assert!(matches!(err, KvError::UnknownProfile { .. }), "{err:?}");
    let msg = err.to_string();
    for p in Profile::ALL {
        assert!(msg.contains(p.name()), "{msg} lacks {p}");
    }
}

#[test]
fn file_backed_profiles_need_a_directory() {
    for profile in Profile::enabled().into_iter().filter(|p| p.needs_dir()) {
        let spec = BackendSpec::new(profile, None).unwrap();
        let err = spec.open(&["data"], RoundTrip).unwrap_err();
        assert!(
            matches!(err, KvError::DirectoryRequired { .. }),
            "{profile}: {err:?}"
        );
        assert!(err.to_string().contains("--dir"), "{err}");
    }
    let btree = BackendSpec::new(Profile::Btree, None).unwrap();
    assert!(btree.open(&["data"], RoundTrip).unwrap().is_ok());
}

#[test]
fn bad_table_declarations_are_refused() {
    let spec = BackendSpec::new(Profile::Btree, None).unwrap();
    for tables in [&[][..], &["a", "a"][..], &["has space"][..], &[""][..]] {
        let err = spec.open(tables, RoundTrip).unwrap_err();
        assert!(
            matches!(err, KvError::InvalidTables(_)),
            "{tables:?}: {err:?}"
        );
    }
}
