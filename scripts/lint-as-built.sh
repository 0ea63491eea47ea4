# Sourced by scripts/test.sh and .ci/run: clippy lints every workspace crate as cargo builds it,
# with warnings denied (what `cargo clippy --all-targets -- -D warnings` reports), instead of in
# a `cargo clippy` of its own.
#
# `cargo clippy` is `cargo check` with clippy-driver wrapped around the workspace's rustc calls;
# the same wrapper around a build lints the crates and still compiles them, so the tests' build
# is the lint run and every dependency is compiled once, not checked a second time (a cold
# `cargo clippy` of the workspace cost ~140 CPU-seconds of the project's two-core VM beside the
# build that compiled the same dependencies). CLIPPY_ARGS is how cargo-clippy hands its lint
# flags to clippy-driver (the flags separated by __CLIPPY_HACKERY__). The toolchain is
# pinned (rust-toolchain.toml), and scripts/test.sh first builds a scratch crate with a planted
# lint and fails if this stops catching it.
#
# Every cargo command that builds workspace crates must run with these set: cargo fingerprints
# the wrapper, and a build without it would compile the workspace's crates again.
clippy_driver=$(rustup which clippy-driver)
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver
export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
