#!/usr/bin/env bash
# Checks that the workspace (every crate, test and bench, every backend) builds for macOS
# (x86_64-apple-darwin), from Linux: the published study's APFS column runs there. The Linux-only
# parts (the slowfs FUSE mount, prctl, /proc) are gated; this keeps them so.
#
# The C the -sys crates build (LMDB, SQLite) is compiled by `zig cc`, which carries macOS's libc
# headers, so no macOS SDK is needed. Installs what it needs itself, into the target directory:
# the Rust target (rustup) and zig (the `ziglang` package from PyPI). Nothing is linked: a
# `cargo check`, not a build.
set -euo pipefail
cd "$(dirname "$0")/.."

triple=x86_64-apple-darwin
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")

if ! rustup target list --installed | grep -qx "$triple"; then
  echo "check-macos: adding the Rust target $triple"
  # rustup's download can fail once and succeed when asked again (on a machine made fresh,
  # CI saw "could not rename 'downloaded' file ... No such file or directory"; the next
  # `rustup target add` finished from the file it had): three tries, then the error.
  for try in 1 2 3; do
    if rustup target add "$triple"; then break; fi
    if [[ $try == 3 ]]; then
      echo "check-macos: rustup could not add $triple (three tries)" >&2
      exit 1
    fi
    echo "check-macos: rustup target add failed (try $try of 3); trying again in 5 s" >&2
    sleep 5
  done
fi

zig_dir=$target/zig
if ! PYTHONPATH=$zig_dir python3 -m ziglang version >/dev/null 2>&1; then
  echo "check-macos: installing zig (PyPI package ziglang) into $zig_dir"
  python3 -m pip install --quiet --disable-pip-version-check --target "$zig_dir" ziglang
fi

# Wrappers the cc crate calls as the C compiler and archiver for the macOS target. The cc crate
# passes clang's --target spelling; zig wants its own.
wrappers=$target/zig-macos
mkdir -p "$wrappers"
cat >"$wrappers/cc" <<EOF
#!/usr/bin/env bash
args=()
for a in "\$@"; do
  case \$a in
    --target=*|-mmacosx-version-min=*) ;;
    *) args+=("\$a") ;;
  esac
done
PYTHONPATH='$zig_dir' exec python3 -m ziglang cc -target x86_64-macos "\${args[@]}"
EOF
cat >"$wrappers/ar" <<EOF
#!/usr/bin/env bash
PYTHONPATH='$zig_dir' exec python3 -m ziglang ar "\$@"
EOF
chmod +x "$wrappers/cc" "$wrappers/ar"

echo "check-macos: cargo check --target $triple --workspace --all-targets --features all-backends"
CC_x86_64_apple_darwin=$wrappers/cc AR_x86_64_apple_darwin=$wrappers/ar RUSTFLAGS="-D warnings" \
  cargo check --target "$triple" --workspace --all-targets --features all-backends
echo "check-macos: the workspace builds for $triple"
