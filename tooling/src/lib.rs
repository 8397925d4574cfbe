//! psxanim host tooling: the canonical animation model, the format readers and writers, FBX import and
//! compilation to the tables the runtime embeds.
