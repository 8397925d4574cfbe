//! psxanim runtime: what a PlayStation game links.
//!
//! Everything here is `no_std`, allocation-free and panic-free on bad data. The same code runs on the
//! host (tests, and the tooling's reference evaluation) where the GTE is replaced by a bit-exact model.
#![no_std]

pub mod record;
