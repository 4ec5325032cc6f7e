//! Value storage in the narrowest width that holds the values.
//!
//! Engines are generic over the [`Cell`] type of the slice they fill; [`Values`] owns a vector of
//! the current width and widens it (8 → 16 → 32 bits) when a larger value appears.

use thiserror::Error;

/// An unsigned integer type that can hold Grundy values.
pub trait Cell:
    Copy
    + Default
    + Send
    + Sync
    + Eq
    + Into<u32>
    + std::ops::BitXor<Output = Self>
    + std::fmt::Debug
    + 'static
{
    /// Width in bits.
    const BITS: u32;
    /// Largest value the type holds.
    const MAX: u32;
    /// The value as `u32`.
    fn get(self) -> u32;
    /// `v`, which must be at most [`Cell::MAX`].
    fn from_u32(v: u32) -> Self;
}

macro_rules! cell {
    ($t:ty) => {
        impl Cell for $t {
            const BITS: u32 = <$t>::BITS;
            const MAX: u32 = <$t>::MAX as u32;
            #[inline(always)]
            fn get(self) -> u32 {
                self as u32
            }
            #[inline(always)]
            fn from_u32(v: u32) -> Self {
                debug_assert!(v <= <Self as Cell>::MAX);
                v as $t
            }
        }
    };
}
cell!(u8);
cell!(u16);
cell!(u32);

/// A value that does not fit the cell width an engine was given.
///
/// Heaps before `at` have been filled; heap `at` has value `value` and was not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("value {value} at heap {at} does not fit")]
pub struct Overflow {
    /// The heap whose value does not fit.
    pub at: usize,
    /// Its value.
    pub value: u32,
}

/// Width of a value cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Width {
    /// One byte per value.
    W8,
    /// Two bytes per value.
    W16,
    /// Four bytes per value.
    W32,
}

impl Width {
    /// The narrowest width that holds `v`.
    pub fn for_value(v: u32) -> Width {
        if v <= u8::MAX as u32 {
            Width::W8
        } else if v <= u16::MAX as u32 {
            Width::W16
        } else {
            Width::W32
        }
    }
    /// Bytes per value.
    pub fn bytes(self) -> usize {
        match self {
            Width::W8 => 1,
            Width::W16 => 2,
            Width::W32 => 4,
        }
    }
}

/// Read access to the Grundy values of heaps `0..len()`, wherever they are stored: in memory
/// ([`Values`]) or in a mapped table file (`table::ValueSlice`).
pub trait GrundyValues {
    /// Number of heaps with a value.
    fn len(&self) -> usize;
    /// True when no heap has a value.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// G(n), for `n < len()`.
    fn get(&self, n: usize) -> u32;
}

impl GrundyValues for Values {
    fn len(&self) -> usize {
        Values::len(self)
    }
    fn get(&self, n: usize) -> u32 {
        Values::get(self, n)
    }
}

/// Grundy values of heaps `0..len` in memory, in the narrowest width seen so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    /// Values below 256.
    W8(Vec<u8>),
    /// Values below 65,536.
    W16(Vec<u16>),
    /// Wider values.
    W32(Vec<u32>),
}

impl Default for Values {
    fn default() -> Self {
        Values::W8(Vec::new())
    }
}

/// Runs `$body` with `$v` bound to the inner vector, whatever its width.
#[macro_export]
#[doc(hidden)]
macro_rules! with_values {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            $crate::engine::Values::W8($v) => $body,
            $crate::engine::Values::W16($v) => $body,
            $crate::engine::Values::W32($v) => $body,
        }
    };
}

impl Values {
    /// Values from a list of `u32`, stored in the narrowest width.
    pub fn from_u32s(values: &[u32]) -> Values {
        let max = values.iter().copied().max().unwrap_or(0);
        match Width::for_value(max) {
            Width::W8 => Values::W8(values.iter().map(|&v| v as u8).collect()),
            Width::W16 => Values::W16(values.iter().map(|&v| v as u16).collect()),
            Width::W32 => Values::W32(values.to_vec()),
        }
    }

    /// Number of heaps stored.
    pub fn len(&self) -> usize {
        with_values!(self, v => v.len())
    }

    /// True when no heap is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// G(n).
    pub fn get(&self, n: usize) -> u32 {
        with_values!(self, v => v[n].get())
    }

    /// The current width.
    pub fn width(&self) -> Width {
        match self {
            Values::W8(_) => Width::W8,
            Values::W16(_) => Width::W16,
            Values::W32(_) => Width::W32,
        }
    }

    /// All values as `u32` (for tests and small outputs).
    pub fn to_u32s(&self) -> Vec<u32> {
        with_values!(self, v => v.iter().map(|x| x.get()).collect())
    }

    /// Iterates over the values as `u32`.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        with_values!(self, v => Box::new(v.iter().map(|x| x.get())))
    }

    /// Converts to at least `width`, keeping the values.
    pub fn widen(&mut self, width: Width) {
        if width <= self.width() {
            return;
        }
        let old = std::mem::take(self);
        *self = match width {
            Width::W8 => unreachable!("widening never narrows"),
            Width::W16 => {
                Values::W16(with_values!(old, v => v.into_iter().map(|x| x.get() as u16).collect()))
            }
            Width::W32 => {
                Values::W32(with_values!(old, v => v.into_iter().map(|x| x.get()).collect()))
            }
        };
    }

    /// Drops the values from heap `len` on.
    pub fn truncate(&mut self, len: usize) {
        with_values!(self, v => v.truncate(len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_keeps_values() {
        let mut v = Values::from_u32s(&[0, 1, 255]);
        assert_eq!(v.width(), Width::W8);
        v.widen(Width::W16);
        assert_eq!(v.width(), Width::W16);
        assert_eq!(v.to_u32s(), vec![0, 1, 255]);
        v.widen(Width::W8);
        assert_eq!(v.width(), Width::W16);
        v.widen(Width::W32);
        assert_eq!(v.to_u32s(), vec![0, 1, 255]);
        assert_eq!(Values::from_u32s(&[70000]).width(), Width::W32);
    }
}
