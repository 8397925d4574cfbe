//! PS-EXE checking (`psxanim run` checks every EXE before an emulator starts) and the boot ROM's own
//! reader: never panic; whatever is accepted loads inside RAM with its entry in its text, and the boot
//! ROM can be built for it.
#![no_main]
use libfuzzer_sys::fuzz_target;
use psxanim_emulator::{bootrom, psexe};

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = psexe::validate_for_running(data) {
        assert!(h.t_addr >= psexe::LOAD_MIN);
        assert!(u64::from(h.t_addr) + u64::from(h.t_size) <= u64::from(psexe::RAM_END));
        assert!(h.pc0 >= h.t_addr && h.pc0 < h.t_addr + h.t_size);
        assert!(data.len() >= psexe::HEADER_SIZE + h.t_size as usize);
    }
    if let Ok(exe) = bootrom::psexe::PsExe::parse(data, "fuzz.exe") {
        let _ = bootrom::build(&exe);
    }
});
