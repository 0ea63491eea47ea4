//! Nothing to link: this package holds the test binary `tests/transact_suite.rs`, which runs
//! Transact 0.4.7's own merkle-state suite against `triebench-transact-state` (see `build.rs`).
