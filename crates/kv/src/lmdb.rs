//! The `lmdb` and `lmdb-async` profiles (in progress).
