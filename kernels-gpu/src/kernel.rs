//! What `#[kernel]` generates a [`Kernel`] implementation for, and the one place where
//! "advance a lane group k steps, freezing samples once they are terminated" is written.
//!
//! `advance`, `needs_replay`, `advance_checked`, `run_sample` and `mask_to_bytes` are the
//! runtime's plumbing (the host team, the GPU entries and the emulated device call them),
//! not part of the kernel language: public for those crates, hidden from the docs.

use crate::lane::{Lane, LaneArray, Mask, Real};
use crate::save::{GroupSave, NoSave, SaveTarget, Saver, SlotIds};

/// The role of one kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A per-sample plane the kernel only reads (`omega: Scalar`).
    In,
    /// A per-sample plane the kernel advances (`x: &mut Scalar`).
    Mut,
    /// One value shared by all samples (`dt: Param`).
    Param,
}

impl Role {
    /// The role as the kernel author writes it.
    pub const fn spelled(self) -> &'static str {
        match self {
            Role::In => "Scalar",
            Role::Mut => "&mut Scalar",
            Role::Param => "Param",
        }
    }
}

/// One plane of a kernel: its name, role and length. The element type is the kernel's
/// `Real`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlaneSpec {
    /// The argument name in the kernel source.
    pub name: &'static str,
    /// How the kernel uses it.
    pub role: Role,
    /// `None` for a single value (`Scalar`, `&mut Scalar`, `Param`); `Some(N)` for an array
    /// plane (`[Scalar; N]`, `&mut [Scalar; N]`: N components, each a plane of its own,
    /// named `x[0]` to `x[N-1]`) or a table (`&[Param; N]`: N values shared by all samples).
    pub len: Option<usize>,
}

impl PlaneSpec {
    /// How many values the plane adds to its role's list: 1, or its length.
    pub const fn width(&self) -> usize {
        match self.len {
            Some(n) => n,
            None => 1,
        }
    }

    /// The argument type as the kernel author writes it (`&mut [Scalar; 40]`).
    pub fn spelled(&self) -> PlaneType {
        PlaneType(*self)
    }
}

/// A plane's argument type as written, for messages (see [`PlaneSpec::spelled`]).
#[derive(Clone, Copy, Debug)]
pub struct PlaneType(PlaneSpec);

impl core::fmt::Display for PlaneType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.0.role, self.0.len) {
            (r, None) => f.write_str(r.spelled()),
            (Role::In, Some(n)) => write!(f, "[Scalar; {n}]"),
            (Role::Mut, Some(n)) => write!(f, "&mut [Scalar; {n}]"),
            (Role::Param, Some(n)) => write!(f, "&[Param; {n}]"),
        }
    }
}

/// The name of one component of an array plane or one value of a table, as every name
/// at run time spells it: `x[3]`. A single-value plane's name is its own name.
pub struct ComponentName<'a>(pub &'a str, pub Option<usize>);

impl core::fmt::Display for ComponentName<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.1 {
            None => f.write_str(self.0),
            Some(j) => write!(f, "{}[{j}]", self.0),
        }
    }
}

/// How many steps one launch advances each active sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Steps {
    /// Let the runner choose (see the runtime's steps policy).
    #[default]
    Auto,
    /// Always this many (capped by the steps left before `max_steps`).
    Fixed(u32),
}

impl core::fmt::Display for Steps {
    /// As `#[kernel(steps = ...)]` takes it: `auto` or the number.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Steps::Auto => f.write_str("auto"),
            Steps::Fixed(k) => write!(f, "{k}"),
        }
    }
}

/// Which host loops a kernel's host build compiles (`#[kernel(host_loops = "portable")]`).
///
/// The host team runs a kernel in lane groups of 1 to 64 samples, compiled for each
/// instruction set (13 loops per kernel on x86-64, twice: with and without saving). For a
/// kernel whose host speed does not matter (a test's, an example's), `Portable` compiles
/// the portable loops alone, at 1, 2, 4 and 8 lanes: about a third of the machine code and
/// of the build time. Every loop gives the same bits, so results do not change; a team
/// runs such a kernel at the portable width that divides the one it would have used, and
/// reports that shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HostLoops {
    /// Every lane width on every instruction set (the default): what `lanes: auto` tunes.
    #[default]
    Every,
    /// The portable loops only (1, 2, 4 and 8 lanes).
    Portable,
}

/// Receives a kernel's planes one by one, in declaration order (see [`Kernel::Planes`]);
/// an array plane's components one by one, in order, each with its index. A name is
/// borrowed for the call only (a visitor that keeps it copies it).
pub trait PlaneVisitor<'a, R: Real> {
    /// A read-only per-sample plane (component `index` of an array plane).
    fn input(&mut self, name: &str, index: Option<usize>, data: &'a [R]);
    /// A value shared by all samples.
    fn param(&mut self, name: &str, value: R);
    /// A table: values shared by all samples (`&[Param; M]`), borrowed for the call only.
    fn table(&mut self, name: &str, values: &[R]);
    /// A per-sample plane the kernel advances (component `index` of an array plane).
    fn mutable(&mut self, name: &str, index: Option<usize>, data: &'a mut [R]);
}

/// A typed set of planes that can hand itself to a [`PlaneVisitor`].
pub trait PlaneSource<'a, R: Real> {
    /// Visits every plane in the kernel's declaration order.
    fn visit(self, v: &mut impl PlaneVisitor<'a, R>);
}

/// A step kernel: one step of one lane group of samples. Generated by `#[kernel]`.
pub trait Kernel: Copy + Send + Sync + Default + 'static {
    /// The element type of every plane.
    type Real: Real;
    /// Read-only per-sample planes, one lane value each.
    type Ins<L: Lane<Elem = Self::Real>>: LaneArray<L>;
    /// Shared parameters, splatted to one lane value each.
    type Params<L: Lane<Elem = Self::Real>>: LaneArray<L>;
    /// Mutable per-sample planes, one lane value each.
    type Muts<L: Lane<Elem = Self::Real>>: LaneArray<L>;
    /// The typed planes struct (`OscillatorPlanes`).
    type Planes<'a>: PlaneSource<'a, Self::Real>;
    /// The kernel's name (the function's name).
    const NAME: &'static str;
    /// Every plane in declaration order (the `Terminated` flag is not a plane). In the
    /// role arrays of [`Kernel::step`] an array plane or table takes as many places as its
    /// length, in this order.
    const PLANES: &'static [PlaneSpec];
    /// The `steps` setting of `#[kernel(steps = ...)]`.
    const STEPS: Steps;
    /// Name of the generated GPU entry point in the PTX module.
    const ENTRY: &'static str;
    /// Which host loops the kernel's host build compiles (`#[kernel(host_loops = ...)]`).
    const HOST_LOOPS: HostLoops = HostLoops::Every;
    /// Params that must be positive (`#[kernel(positive = [dt])]`): a run refuses a value
    /// that is not, naming it, before it starts.
    const POSITIVE: &'static [&'static str] = &[];
    /// Params and single-value planes holding whole numbers that key random numbers
    /// (`#[kernel(counters = [seed, path, step])]`, [`crate::random::Stream`]): a run
    /// refuses a value that is not a whole number from 0 to below
    /// [`crate::random::counter_limit`], naming the plane, the sample and the value,
    /// before it starts.
    const COUNTERS: &'static [&'static str] = &[];
    /// The kernel's identity: a hash of its signature, body and settings and of hawk's
    /// entry ABI, stored in the GPU module beside the entry (`hawk_id_<name>`). Deploy
    /// refuses a module whose entry of this name carries another identity: another
    /// kernel of the same name.
    const IDENTITY: u64;
    /// The arguments of the GPU entry `hawk_<name>` (generated; the device teams' plumbing).
    #[doc(hidden)]
    type Step: crate::device::StepEntry<Self::Real> + 'static;
    /// The arguments of the GPU entry `hawk_<name>_indexed` (generated; plumbing).
    #[doc(hidden)]
    type StepIndexed: crate::device::StepEntry<Self::Real> + 'static;
    /// One step. `terminated` holds the flags before the step; the body may set them.
    fn step<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
    );
    /// `true` when the kernel has a `failed: &mut Failed` argument (it can flag a sample
    /// as failed, e.g. an adaptive method's step size collapse).
    const FAILS: bool = false;
    /// One step that may also flag lanes as failed: `failed` is OR-ed into, never cleared.
    /// Kernels without a `&mut Failed` argument never set it (this default).
    #[inline(always)]
    fn step_or_fail<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
    ) {
        let _ = failed;
        Self::step(ins, params, muts, terminated)
    }
    /// The kernel's time plane (`#[kernel(time = t)]`, a `&mut Scalar` plane): what saving
    /// at times compares against. `None` when the kernel declares none.
    const TIME: Option<&'static str> = None;
    /// `true` when the kernel takes a `NextSave` argument: each lane's next save time
    /// (`+inf` when none), which adaptive methods clip their step to (see
    /// `hawk::methods::adaptive_step_to`), so saved points land on the save times exactly.
    const NEXT_SAVE: bool = false;
    /// One step given each lane's next save time `next_save` (`+inf` when none): kernels
    /// without a `NextSave` argument ignore it (this default).
    #[inline(always)]
    fn step_to<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
        next_save: L,
    ) {
        let _ = next_save;
        Self::step_or_fail(ins, params, muts, terminated, failed)
    }
    /// The kernel's host chunk loops, one per instruction set and lane width (host builds
    /// only; the host team's plumbing). `#[kernel]` keeps them in a `static` of the
    /// kernel's own crate, so they are compiled there, once, and every crate that runs the
    /// kernel links them. This default, for wrappers such as [`PortableLoops`], is
    /// compiled in whichever crate runs the kernel.
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn host_loops() -> &'static crate::host::LoopTable<Self::Real>
    where
        Self::Real: crate::host::LaneTypes,
    {
        &const { crate::host::LoopTable::of::<Self>() }
    }
    /// The kernel's portable host loops alone, as [`PortableLoops`] runs them (host builds
    /// only; plumbing). `#[kernel]` keeps them in a `static` too, beside
    /// [`Kernel::host_loops`], whose portable loops they are.
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn portable_host_loops() -> &'static crate::host::LoopTable<Self::Real>
    where
        Self::Real: crate::host::LaneTypes,
    {
        &const { crate::host::LoopTable::portable_of::<Self>() }
    }
    /// Number of values of `role` (an array plane or a table counts its length): the
    /// length of the role's array in [`Kernel::step`].
    fn count(role: Role) -> usize {
        Self::PLANES
            .iter()
            .filter(|p| p.role == role)
            .map(PlaneSpec::width)
            .sum()
    }
}

/// Kernel `K` with the portable host loops alone ([`HostLoops::Portable`]), without
/// changing its definition: `eagle::deploy(PortableLoops(Oscillator), ...)` runs the
/// built-in oscillator, with its planes, GPU entry and results, from a third of its host
/// build. For tests and examples of kernels defined elsewhere, where host speed does not
/// matter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortableLoops<K>(pub K);

impl<K: Kernel> Kernel for PortableLoops<K> {
    type Real = K::Real;
    type Ins<L: Lane<Elem = Self::Real>> = K::Ins<L>;
    type Params<L: Lane<Elem = Self::Real>> = K::Params<L>;
    type Muts<L: Lane<Elem = Self::Real>> = K::Muts<L>;
    type Planes<'a> = K::Planes<'a>;
    const NAME: &'static str = K::NAME;
    const PLANES: &'static [PlaneSpec] = K::PLANES;
    const STEPS: Steps = K::STEPS;
    const ENTRY: &'static str = K::ENTRY;
    const HOST_LOOPS: HostLoops = HostLoops::Portable;
    const POSITIVE: &'static [&'static str] = K::POSITIVE;
    const COUNTERS: &'static [&'static str] = K::COUNTERS;
    const IDENTITY: u64 = K::IDENTITY;
    type Step = K::Step;
    type StepIndexed = K::StepIndexed;
    const FAILS: bool = K::FAILS;
    const TIME: Option<&'static str> = K::TIME;
    const NEXT_SAVE: bool = K::NEXT_SAVE;

    #[cfg(not(target_arch = "nvptx64"))]
    fn host_loops() -> &'static crate::host::LoopTable<Self::Real>
    where
        Self::Real: crate::host::LaneTypes,
    {
        K::portable_host_loops()
    }

    #[cfg(not(target_arch = "nvptx64"))]
    fn portable_host_loops() -> &'static crate::host::LoopTable<Self::Real>
    where
        Self::Real: crate::host::LaneTypes,
    {
        K::portable_host_loops()
    }

    #[inline(always)]
    fn step<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
    ) {
        K::step(ins, params, muts, terminated)
    }

    #[inline(always)]
    fn step_or_fail<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
    ) {
        K::step_or_fail(ins, params, muts, terminated, failed)
    }

    #[inline(always)]
    fn step_to<L: Lane<Elem = Self::Real>>(
        ins: &Self::Ins<L>,
        params: &Self::Params<L>,
        muts: &mut Self::Muts<L>,
        terminated: &mut L::Mask,
        failed: &mut L::Mask,
        next_save: L,
    ) {
        K::step_to(ins, params, muts, terminated, failed, next_save)
    }
}

/// The `N` values of a role array from `at` on, as an array: how the generated
/// [`Kernel::step`] hands an array plane or a table to the kernel body (the lengths are
/// constants, so the check folds away).
#[doc(hidden)]
#[inline(always)]
pub fn part<T, const N: usize>(values: &[T], at: usize) -> &[T; N] {
    values[at..]
        .first_chunk()
        .expect("#[kernel] sizes the role arrays")
}

/// The next `N` mutable values of a role array, as an array, leaving the rest in `rest`:
/// how the generated [`Kernel::step`] splits the mutable planes between the arguments.
#[doc(hidden)]
#[inline(always)]
pub fn part_mut<'s, T, const N: usize>(rest: &mut &'s mut [T]) -> &'s mut [T; N] {
    let (head, tail) = core::mem::take(rest)
        .split_first_chunk_mut()
        .expect("#[kernel] sizes the role arrays");
    *rest = tail;
    head
}

/// A sample's status byte in the `terminated` plane: still running.
pub const ACTIVE: u8 = 0;
/// A sample's status byte: the kernel set its `terminated` flag.
pub const FINISHED: u8 = 1;
/// A sample's status byte: its state became NaN or infinite, or the kernel set `failed`;
/// it keeps the state from before the failing step.
pub const FAILED: u8 = 2;

/// Advances one lane group up to `k` steps with its state in registers (the fast path).
///
/// A sample whose flag is set (before or during these steps) never changes again: the step
/// that sets the flag is kept, later steps are discarded lane by lane. Kernel-flagged
/// failures are OR-ed into `failed` without stopping anything; the caller checks the result
/// once with [`needs_replay`] and, only then, replays the launch from its start state with
/// [`advance_checked`] (kernels are pure, so the replay gives the same bits). Returns the
/// number of steps executed for the group (less than `k` when every lane finished early).
///
/// `save` writes the launch's save points after each step ([`crate::save`]); with
/// [`NoSave`](crate::save::NoSave) its hooks are empty and this is the loop without saving.
#[doc(hidden)]
#[inline(always)]
pub fn advance<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    ins: &K::Ins<L>,
    params: &K::Params<L>,
    muts: &mut K::Muts<L>,
    terminated: &mut L::Mask,
    failed: &mut L::Mask,
    k: u32,
    save: &mut S,
) -> u32 {
    let mut s = 0;
    // Fast path: while no lane has finished, nothing needs freezing.
    if !terminated.any() {
        while s < k {
            save.step(ins, params, muts, terminated, failed);
            s += 1;
            save.after_step(s, muts, *terminated, *failed);
            if terminated.any() {
                break;
            }
        }
    }
    // Some lanes finished: keep stepping the others, select the frozen lanes back.
    while s < k && !terminated.all() {
        let before = *terminated;
        let old = *muts;
        save.step(ins, params, muts, terminated, failed);
        let (m, o) = (muts.as_mut_slice(), old.as_slice());
        for j in 0..m.len() {
            m[j] = L::select(before, o[j], m[j]);
        }
        *terminated |= before;
        s += 1;
        save.after_step(s, muts, *terminated, *failed);
    }
    s
}

/// After an [`advance`]: does any lane that was running at the start (`start` clear) now
/// hold a NaN or infinite state, or did the kernel flag it failed? Then the launch must be
/// replayed with [`advance_checked`]. One pass over the state per launch, not per step.
#[doc(hidden)]
#[inline(always)]
pub fn needs_replay<K: Kernel, L: Lane<Elem = K::Real>>(
    muts: &K::Muts<L>,
    start: L::Mask,
    failed: L::Mask,
) -> bool {
    let mut bad = failed;
    for m in muts.as_slice() {
        bad |= !m.is_finite();
    }
    (bad & !start).any()
}

/// [`advance`] with a check after every step: a running lane whose new state is NaN or
/// infinite, or that the kernel flagged failed, keeps its state from before that step, is
/// frozen (`terminated` set) and is marked in `failed`. Lanes that do not fail get exactly
/// the bits [`advance`] gives them. Out of line on the host, so the fast path keeps its
/// registers.
#[doc(hidden)]
#[cfg_attr(not(target_arch = "nvptx64"), inline(never))]
#[cfg_attr(target_arch = "nvptx64", inline(always))]
pub fn advance_checked<'t, K: Kernel, L: Lane<Elem = K::Real>, S: Saver<'t, K, L>>(
    ins: &K::Ins<L>,
    params: &K::Params<L>,
    muts: &mut K::Muts<L>,
    terminated: &mut L::Mask,
    failed: &mut L::Mask,
    k: u32,
    save: &mut S,
) -> u32 {
    let mut s = 0;
    while s < k && !terminated.all() {
        let before = *terminated;
        let old = *muts;
        let mut flagged = L::Mask::splat(false);
        save.step(ins, params, muts, terminated, &mut flagged);
        let mut bad = flagged;
        for m in muts.as_slice() {
            bad |= !m.is_finite();
        }
        let bad = bad & !before;
        let keep = before | bad;
        let (m, o) = (muts.as_mut_slice(), old.as_slice());
        for j in 0..m.len() {
            m[j] = L::select(keep, o[j], m[j]);
        }
        *terminated |= keep;
        *failed |= bad;
        s += 1;
        save.after_step(s, muts, *terminated, *failed);
    }
    s
}

/// Runs one sample (scalar lane) of a launch: loads it from raw planes, advances it `k`
/// steps, stores it back, and saves its points into `save` (when on) under caller id `id`.
/// This is the body of every generated GPU entry point and what an emulated device team
/// calls per thread. Returns whether the sample is still active and how many steps it took
/// (0 for a sample that had already stopped).
///
/// # Safety
/// Every pointer must be valid for index `i` (reads for `ins`, reads and writes for `muts`
/// and `terminated`), and no other thread may touch index `i` meanwhile; `ids` must be
/// valid for `i`, and when `save` is on it must cover sample `ids.id(i)` and `k` steps
/// ([`SaveTarget::covers`]), with no other thread saving points of that sample meanwhile.
#[doc(hidden)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn run_sample<K: Kernel>(
    i: usize,
    k: u32,
    ins: &[*const K::Real],
    params: &[K::Real],
    muts: &[*mut K::Real],
    terminated: *mut u8,
    save: &SaveTarget<K::Real>,
    ids: SlotIds,
) -> (bool, u32)
where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    // SAFETY: this function's contract: `terminated` is valid at `i`, and `sample_with`
    // gets the same pointers, index and save target.
    unsafe {
        if *terminated.add(i) != ACTIVE {
            return (false, 0);
        }
        // One branch per launch (uniform over a launch's threads): the loop without saving
        // stays exactly as it was.
        if save.on() {
            sample_with::<K, GroupSave<'_, K::Real>>(i, k, ins, params, muts, terminated, save, ids)
        } else {
            sample_with::<K, NoSave>(i, k, ins, params, muts, terminated, save, ids)
        }
    }
}

/// [`run_sample`] for an active sample with saver `S`.
///
/// # Safety
/// As [`run_sample`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn sample_with<'t, K: Kernel, S: Saver<'t, K, K::Real>>(
    i: usize,
    k: u32,
    ins: &[*const K::Real],
    params: &[K::Real],
    muts: &[*mut K::Real],
    terminated: *mut u8,
    save: &'t SaveTarget<K::Real>,
    ids: SlotIds,
) -> (bool, u32)
where
    K::Real: Lane<Elem = K::Real, Mask = bool>,
{
    // SAFETY: the contract of `run_sample`: every plane pointer is valid at `i` and no
    // other thread touches index `i`; `ids` is valid for `i`, and the target covers sample
    // `ids.id(i)` and the launch's `k` steps, saved by this thread only (the scalar lane's
    // group is slot `i` alone): `S::begin`'s contract.
    unsafe {
        let inv = K::Ins::<K::Real>::from_fn(|j| *ins[j].add(i));
        let par = K::Params::<K::Real>::from_fn(|j| params[j]);
        let load = || K::Muts::<K::Real>::from_fn(|j| *muts[j].add(i));
        let mut st = load();
        let (mut term, mut failed) = (false, false);
        let mut sv = S::begin(save, ids, i, false, &st);
        let mut taken =
            advance::<K, K::Real, S>(&inv, &par, &mut st, &mut term, &mut failed, k, &mut sv);
        if needs_replay::<K, K::Real>(&st, false, failed) {
            // The planes still hold the launch's start state: replay it step by step (its
            // saved points overwrite the fast path's).
            st = load();
            (term, failed) = (false, false);
            sv = S::begin(save, ids, i, false, &st);
            taken = advance_checked::<K, K::Real, S>(
                &inv,
                &par,
                &mut st,
                &mut term,
                &mut failed,
                k,
                &mut sv,
            );
        }
        for (j, v) in st.as_slice().iter().enumerate() {
            *muts[j].add(i) = *v;
        }
        if term {
            sv.finish(taken, &st, term, failed, true);
        }
        *terminated.add(i) = if failed { FAILED } else { term as u8 };
        (!term, taken)
    }
}

/// A mask lane as bytes (`0` or `1`), for the terminated plane.
#[doc(hidden)]
#[inline(always)]
pub fn mask_to_bytes<M: Mask>(m: M, out: &mut [u8]) {
    for (i, b) in out.iter_mut().enumerate() {
        *b = m.test(i) as u8;
    }
}
