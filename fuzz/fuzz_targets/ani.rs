//! `.ani` reader: never panics; whatever it accepts rewrites to a file that reads back the same.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim::formats::{ani, Losses};

fuzz_target!(|data: &[u8]| {
    if let Ok(anim) = ani::read(data) {
        let _ = psxanim::formats::json::to_json(&anim);
        let out = ani::write(&anim, anim.version, &mut Losses::default()).expect("a read file is writable");
        // Events are sorted on reading, so the rewrite may reorder them; the rewrite of the rewrite is stable.
        let again = ani::read(&out).expect("the rewrite reads back");
        assert_eq!(ani::write(&again, anim.version, &mut Losses::default()).unwrap(), out);
        if anim.clips[0].events.len() < 2 {
            assert_eq!(out, data, "unedited rewrite must be byte-identical");
        }
    }
});
