//! ANIMBIN parser (being written)
