//! triebench: benches live in `benches/`; the libraries are `triebench-kv`, `triebench-merkle` and `triebench-harness`.
