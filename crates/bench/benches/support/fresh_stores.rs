//! The benches' fresh stores: one [`FreshStores`] per profile under `TMPDIR`, kept for the
//! whole bench process, so a PostgreSQL profile starts one server (a replicated profile one
//! pair) and each measured iteration gets a fresh schema (key namespace) of it (see
//! `triebench_kv::FreshStores`). Hold a [`Guard`] in `main`: it stops the servers and removes
//! their directories when the benches end.

use std::sync::{Arc, Mutex};

use triebench_kv::{FreshStores, KvError, Profile, StoreVisitor};

static STORES: Mutex<Vec<Arc<FreshStores>>> = Mutex::new(Vec::new());

/// Runs `visitor` on a fresh store of `profile` with `tables`, under `TMPDIR`.
pub fn run<V: StoreVisitor>(
    profile: Profile,
    tables: &[&str],
    visitor: V,
) -> Result<V::Output, KvError> {
    let stores = {
        let mut all = STORES.lock().unwrap_or_else(|p| p.into_inner());
        match all.iter().find(|s| s.profile() == profile) {
            Some(found) => Arc::clone(found),
            None => {
                let made = Arc::new(FreshStores::new(profile, &std::env::temp_dir())?);
                all.push(Arc::clone(&made));
                made
            }
        }
    };
    stores.run(tables, visitor)
}

/// Drops every profile's stores (servers stopped, directories removed) when dropped.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        STORES.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}
