//! Unit tests of the GTE API.
