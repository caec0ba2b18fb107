//! Fallible host allocations: every buffer the size of the ensemble (status bytes, working
//! copies, trajectories, planes coming home) is asked for with `try_reserve`, so memory that
//! runs out is [`Error::HostOutOfMemory`] naming what and how much, never an abort.

use crate::error::Error;

/// `len` copies of `value`, or [`Error::HostOutOfMemory`] naming `what`.
pub(crate) fn filled<T: Clone>(value: T, len: usize, what: &'static str) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::HostOutOfMemory {
            what,
            bytes: len as u128 * size_of::<T>() as u128,
        })?;
    v.resize(len, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_memory_cannot_hold_is_an_error_naming_it() {
        let e = filled(0u64, 1 << 44, "status bytes").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("status bytes") && msg.contains("131072.0 GiB"),
            "{msg}"
        );
        assert_eq!(filled(7u8, 3, "x").unwrap(), vec![7, 7, 7]);
    }
}
