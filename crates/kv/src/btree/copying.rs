//! [`Copying`]: a copy of the committed tables made on a thread of its own, so that the
//! first fold under readers (see `snapshot`) does not stop the writer, and every reader
//! waiting for the store's lock, while millions of entries are copied (1.5 s for a
//! 100,000-leaf trie's 3 million nodes on the project's VM).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::snapshot::Tables;

/// A copy of one version of the tables, in the making.
#[derive(Debug)]
pub(super) struct Copying {
    /// The tables being copied (they never change: readers may hold them).
    of: Arc<Tables>,
    /// The thread making the copy; `None` if no thread could be started, in which case
    /// [`finish`](Self::finish) copies on the caller's thread.
    thread: Option<JoinHandle<Tables>>,
}

impl Copying {
    /// Starts copying `of` on a new thread; with a `gate`, the thread first waits until it is
    /// open (tests close it to see commits go on while a copy is made).
    pub(super) fn start(of: Arc<Tables>, gate: Option<Arc<AtomicBool>>) -> Copying {
        let source = Arc::clone(&of);
        let thread = std::thread::Builder::new()
            .name("btree-copy".into())
            .spawn(move || {
                while gate
                    .as_ref()
                    .is_some_and(|open| !open.load(Ordering::Acquire))
                {
                    std::thread::yield_now();
                }
                (*source).clone()
            })
            .ok();
        Copying { of, thread }
    }

    /// Whether this is a copy of `tables`.
    pub(super) fn is_of(&self, tables: &Arc<Tables>) -> bool {
        Arc::ptr_eq(&self.of, tables)
    }

    /// Whether [`finish`](Self::finish) would return at once.
    pub(super) fn is_done(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// The copy, waiting for the thread if it is not done (or copying here if the thread
    /// could not start or failed).
    pub(super) fn finish(self) -> Tables {
        match self.thread.map(JoinHandle::join) {
            Some(Ok(copy)) => copy,
            _ => (*self.of).clone(),
        }
    }
}
