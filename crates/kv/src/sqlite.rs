//! The sqlite backend (in progress).
