//! The panic handler: marks the verification record failed (so the host sees why) and stops.
//! No message formatting: that would pull in BIOS-free text output we do not have.

use crate::record::{panic_detail, Record};

/// `Record::error` after a panic ("PANC"); `Record::error_detail` holds the source line and file
/// (`record::panic_detail`).
pub const ERROR_PANIC: u32 = crate::record::ERROR_PANIC_CODE;

static mut ATTACHED: *mut Record = core::ptr::null_mut();

/// Tells the panic handler where the program's record lives. Call once at start-up.
pub fn attach_record(record: *mut Record) {
    // SAFETY: single-threaded, no interrupt handlers; a plain pointer store.
    unsafe { ATTACHED = record };
}

#[panic_handler]
fn on_panic(info: &core::panic::PanicInfo) -> ! {
    let detail = info.location().map_or(0, |l| panic_detail(l.file(), l.line()));
    // SAFETY: the pointer is null or was given by `attach_record` for a record that lives forever.
    if let Some(record) = unsafe { ATTACHED.as_mut() } {
        record.fail(ERROR_PANIC, detail);
    }
    loop {
        core::hint::spin_loop();
    }
}
