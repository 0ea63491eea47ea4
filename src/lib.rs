//! triebench: the benches live in `benches/`; the libraries are `triebench-kv` (storage),
//! `triebench-merkle` (the trie), `triebench-workloads` (what runs against a store) and
//! `triebench-report` (measurements to result folders); `triebench-harness` is the CLI.
