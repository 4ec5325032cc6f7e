//! What the machine can give a computation: memory, above all.

use thiserror::Error;

/// A request that the machine cannot satisfy.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{what} needs at least {} of memory but only {} is available{hint}", human_bytes(*.needed), human_bytes(*.available))]
pub struct MemoryError {
    /// What needs the memory.
    pub what: String,
    /// Bytes needed.
    pub needed: u64,
    /// Bytes available.
    pub available: u64,
    /// A suggestion, starting with "; ".
    pub hint: String,
}

/// Memory the kernel says is available for new allocations (`MemAvailable`), if known.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses a request for `needed` bytes when the machine has fewer available.
pub fn check_memory(what: &str, needed: u64, hint: &str) -> Result<(), MemoryError> {
    match available_memory() {
        Some(available) if needed > available => Err(MemoryError {
            what: what.to_string(),
            needed,
            available,
            hint: hint.to_string(),
        }),
        _ => Ok(()),
    }
}

/// The size of the file system holding `dir` (all of it, used or not), if known. (The casts are
/// no-ops on 64-bit Linux; the field types are narrower elsewhere.)
#[allow(clippy::unnecessary_cast)]
pub fn filesystem_size(dir: &std::path::Path) -> Option<u64> {
    let st = statvfs(dir)?;
    (st.f_blocks as u64).checked_mul(st.f_frsize as u64)
}

/// The space free for new files on the file system holding `dir`, if known.
#[allow(clippy::unnecessary_cast)]
pub fn free_space(dir: &std::path::Path) -> Option<u64> {
    let st = statvfs(dir)?;
    (st.f_bavail as u64).checked_mul(st.f_frsize as u64)
}

/// `statvfs(2)` of the file system holding `dir`.
fn statvfs(dir: &std::path::Path) -> Option<libc::statvfs> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a NUL-terminated path and `st` a properly sized, writable struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st)
}

/// `1536` → `1.5 KiB`.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes() {
        assert_eq!(human_bytes(10), "10 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(1 << 40), "1.0 TiB");
        assert!(check_memory("x", u64::MAX, "").is_err() || available_memory().is_none());
        assert!(check_memory("x", 1, "").is_ok());
        assert!(filesystem_size(std::path::Path::new("/")).is_some_and(|s| s > 0));
    }
}
