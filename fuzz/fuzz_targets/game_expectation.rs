//! A game's checks (`psxanim run --expect`): any RAM dump against a fixed expectation never panics,
//! and every check names itself.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim_emulator::game_checks::{check, Expectation, ExpectedStatus, ExpectedWord};

fuzz_target!(|data: &[u8]| {
    let expected = Expectation {
        program: "GAME".into(),
        status: ExpectedStatus::Done,
        min_frames: 1,
        results: vec![
            ExpectedWord { index: 0, name: None, equals: Some(3), min: None, max: None },
            ExpectedWord { index: 8191, name: Some("last".into()), equals: None, min: Some(1), max: None },
        ],
    };
    for c in check(data, &expected) {
        assert!(!c.name.is_empty());
    }
});
