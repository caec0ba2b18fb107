//! The one description of a GPU entry's parameters, shared by the `extern "gpu-kernel"`
//! declaration, the runtime's launches and its emulated device.

/// One kernel parameter as the bytes the entry expects (what the driver copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamWord {
    /// A 4-byte value (`u32`, `f32`).
    B4(u32),
    /// An 8-byte value (`u64`, `f64`, a device pointer).
    B8(u64),
}

impl ParamWord {
    /// The value widened to 64 bits.
    pub fn as_u64(self) -> u64 {
        match self {
            ParamWord::B4(v) => u64::from(v),
            ParamWord::B8(v) => v,
        }
    }
}

/// A type a GPU entry takes as one parameter: a scalar, a raw pointer, or an array of
/// them (an array plane's component pointers, a table's values), which the entry takes by
/// value (PTX `.param .align 8 .b8 name[bytes]`).
pub trait EntryParam: Copy {
    /// Its size in the entry's parameter list (4 or 8; an array's total).
    const BYTES: u16;
    /// Its bytes as the driver passes them: one word, or an array's words in order.
    fn words(self, out: &mut dyn FnMut(ParamWord));
}

/// `EntryParam` for scalar types: one word each.
macro_rules! scalar_param {
    ($($t:ty => $bytes:literal, |$v:ident| $word:expr;)*) => {
        $(impl EntryParam for $t {
            const BYTES: u16 = $bytes;
            fn words(self, out: &mut dyn FnMut(ParamWord)) {
                let $v = self;
                out($word)
            }
        })*
    };
}

scalar_param! {
    u32 => 4, |v| ParamWord::B4(v);
    u64 => 8, |v| ParamWord::B8(v);
    f32 => 4, |v| ParamWord::B4(v.to_bits());
    f64 => 8, |v| ParamWord::B8(v.to_bits());
}

impl<T> EntryParam for *const T {
    const BYTES: u16 = 8;
    fn words(self, out: &mut dyn FnMut(ParamWord)) {
        out(ParamWord::B8(self as usize as u64))
    }
}

impl<T> EntryParam for *mut T {
    const BYTES: u16 = 8;
    fn words(self, out: &mut dyn FnMut(ParamWord)) {
        out(ParamWord::B8(self as usize as u64))
    }
}

impl<T: EntryParam, const N: usize> EntryParam for [T; N] {
    const BYTES: u16 = T::BYTES * N as u16;
    fn words(self, out: &mut dyn FnMut(ParamWord)) {
        for v in self {
            v.words(out);
        }
    }
}

/// The bytes of an entry's parameter list (each parameter starts 8-aligned): what
/// `#[kernel]` checks against the 4 KiB a launch may pass.
pub const fn param_bytes(params: &[(&str, u16)]) -> usize {
    let mut total = 0usize;
    let mut j = 0;
    while j < params.len() {
        total = total.next_multiple_of(8) + params[j].1 as usize;
        j += 1;
    }
    total
}

/// The first `N` values of `parts`, concatenated: how a generated entry lays its planes'
/// fields (single values and arrays) out as one list per role for [`run_sample`]
/// (`N` is the role's total and the parts' lengths are constants, so this folds away).
///
/// [`run_sample`]: crate::run_sample
#[inline(always)]
pub fn concat_planes<T: Copy, const N: usize>(parts: &[&[T]]) -> [T; N] {
    core::array::from_fn(|mut j| {
        for p in parts {
            if j < p.len() {
                return p[j];
            }
            j -= p.len();
        }
        panic!("#[kernel] sizes the role lists")
    })
}

/// An entry's symbol and its parameters (name, size in bytes), in order: what a module's
/// PTX must declare for the entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryDesc {
    /// The symbol.
    pub symbol: &'static str,
    /// Each parameter's name and size in bytes.
    pub params: &'static [(&'static str, u16)],
}

/// The arguments of one GPU entry: its parameters, in order, as named fields. Made by
/// [`device_entry!`](crate::device_entry), which also declares the `extern "gpu-kernel"`
/// entry taking exactly these fields, so the launch side, the emulated device and the GPU
/// entry cannot disagree.
pub trait EntryArgs: Copy {
    /// The entry's symbol in the PTX module.
    const SYMBOL: &'static str;
    /// Every parameter's name and size in bytes, in the entry's order.
    const PARAMS: &'static [(&'static str, u16)];
    /// The symbol and the parameters together.
    const DESC: EntryDesc = EntryDesc {
        symbol: Self::SYMBOL,
        params: Self::PARAMS,
    };
    /// Hands every parameter's words to `out` with the parameter's position, in the
    /// entry's order (an array parameter gives several words).
    fn words(&self, out: &mut dyn FnMut(usize, ParamWord));
    /// Runs thread `i` of a launch with these arguments (the GPU entry calls this with
    /// its global index).
    ///
    /// # Safety
    /// The pointers must be valid as the entry's body documents, for every thread of the
    /// launch.
    unsafe fn thread(&self, i: usize);
}

/// What a step launch needs, whichever entry (plain or indexed) it goes to. Buffers are
/// device addresses (the runtime's handles); [`StepEntry::new`] types them.
#[derive(Clone, Copy, Debug)]
pub struct StepLaunch<'a, R> {
    /// Samples (plain entry) or index-list slots (indexed entry) the launch covers.
    pub slots: u32,
    /// Steps per sample.
    pub k: u32,
    /// The index list's address (indexed entry only; 0 for the plain one).
    pub ids: u64,
    /// The `In` planes' addresses, in declaration order.
    pub ins: &'a [u64],
    /// The `Param` values, in declaration order.
    pub params: &'a [R],
    /// The `Mut` planes' addresses, in declaration order.
    pub muts: &'a [u64],
    /// The status bytes' address.
    pub terminated: u64,
    /// The active counter's address.
    pub active: u64,
    /// Where the launch saves points (all zero: no saving).
    pub save: SaveLaunch,
}

/// The save-point arguments of a step launch (see `hawk::save::SaveTarget`): device
/// addresses and the schedule. `data == 0` saves nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SaveLaunch {
    /// The saved values' address (`(q * points + j) * n + id`).
    pub data: u64,
    /// The point statuses' address (`j * n + id`).
    pub status: u64,
    /// The save times' address (times mode), else 0.
    pub times: u64,
    /// The caller id of each slot (dense planes), else 0 (slot = caller id).
    pub ids: u64,
    /// The address of the run's global step count before the launch (a `u64`).
    pub step0: u64,
    /// A point every `every` steps; 0 in times mode.
    pub every: u32,
    /// Points per sample.
    pub points: u32,
    /// Samples in the ensemble.
    pub n: u32,
    /// Bit mask of the saved mutable components (bit `j`: component `j`).
    pub planes: u64,
    /// The time plane's index among the mutable planes (times mode).
    pub time: u32,
}

/// A device address as a typed pointer (the host never dereferences it, except on an
/// emulated device, whose memory is host memory).
#[inline(always)]
pub fn address<T>(a: u64) -> *mut T {
    a as usize as *mut T
}

/// The arguments of a kernel's step entry (`hawk_<name>` or `hawk_<name>_indexed`),
/// generated by `#[kernel]`: built from a [`StepLaunch`] by each plane's role and index.
pub trait StepEntry<R>: EntryArgs {
    /// The arguments of this launch.
    fn new(launch: &StepLaunch<'_, R>) -> Self;
}

/// Describes one GPU entry: a struct of its parameters (in order), its body for thread
/// `i`, and, on `nvptx64`, the `#[no_mangle] extern "gpu-kernel"` function of that symbol
/// taking the fields as parameters. Used for the helper kernels and by `#[kernel]`.
///
/// ```
/// use hawk::device::EntryArgs;
/// hawk::device_entry! {
///     /// Thread 0 stores `n` at `out`.
///     pub Store => my_store { n: u32, out: *mut u32 }
///     |a, i| {
///         if i == 0 {
///             *a.out = a.n
///         }
///     }
/// }
/// let mut v = 0u32;
/// let args = Store { n: 7, out: &mut v };
/// assert_eq!(Store::SYMBOL, "my_store");
/// assert_eq!(Store::PARAMS, &[("n", 4), ("out", 8)]);
/// unsafe { args.thread(0) }; // what the emulated device and the GPU entry run
/// assert_eq!(v, 7);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! device_entry {
    (
        $(#[$meta:meta])*
        $vis:vis $name:ident => $sym:ident { $($field:ident : $ty:ty),* $(,)? }
        |$a:ident, $i:ident| { $($body:tt)* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        $vis struct $name {
            $(
                #[doc = concat!("Parameter `", stringify!($field), "`.")]
                pub $field: $ty,
            )*
        }

        impl $crate::device::EntryArgs for $name {
            const SYMBOL: &'static str = stringify!($sym);
            const PARAMS: &'static [(&'static str, u16)] = &[
                $((stringify!($field), <$ty as $crate::device::EntryParam>::BYTES)),*
            ];
            #[inline]
            fn words(&self, out: &mut dyn FnMut(usize, $crate::device::ParamWord)) {
                let mut _at = 0;
                $(
                    $crate::device::EntryParam::words(self.$field, &mut |w| out(_at, w));
                    _at += 1;
                )*
            }
            #[inline(always)]
            unsafe fn thread(&self, $i: usize) {
                let $a = self;
                // SAFETY: the caller passes pointers valid as the entry's body documents,
                // for every thread of the launch (this method's contract).
                #[allow(unused_unsafe)]
                unsafe { $($body)* }
            }
        }

        $(#[$meta])*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "gpu-kernel" fn $sym($($field: $ty),*) {
            // SAFETY: the launch passes these parameters valid as the body documents for
            // every thread of its grid (the entry's contract, met by the runtime).
            unsafe {
                $crate::device::EntryArgs::thread(
                    &$name { $($field),* },
                    $crate::device::global_index(),
                )
            }
        }
    };
}
