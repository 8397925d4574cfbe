//! Verification record (placeholder; see issue 2).
