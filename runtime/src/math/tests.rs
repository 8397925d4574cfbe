//! Unit tests of the math module.
