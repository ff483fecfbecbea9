//! The clock the benches read besides the wall clock: time on a CPU.

use std::time::Duration;

/// Time this thread has spent on a CPU (`CLOCK_THREAD_CPUTIME_ID`): on a
/// shared machine it leaves out the time other processes held the core.
/// Linux on 64-bit targets only, where libc's `clock_gettime` and its
/// `timespec` layout are known; `None` elsewhere.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn on_cpu() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| Duration::new(t.sec as u64, t.nsec as u32))
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn on_cpu() -> Option<Duration> {
    None
}
