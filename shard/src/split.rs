//! Splitting an ensemble: contiguous ranges sized by weight, and the caller's planes cut
//! into those ranges (sub-slices: nothing is copied, results land in the caller's order).

use eagle_runtime::{Deployed, Error, Options, PlaneSet, until_done};
use hawk::{ComponentName, Kernel, PlaneSource, PlaneVisitor, Real, Role};
use hawk_host::HostReal;
use std::ops::Range;

/// Contiguous ranges that cover `0..n` in order, one per weight, each sized in proportion
/// to its weight (a device's throughput; equal weights split as evenly as integers allow,
/// the first ranges never shorter than the later ones by more than one). A range may be
/// empty (`n` smaller than the number of weights).
///
/// ```
/// use eagle_shard::ranges;
/// assert_eq!(ranges(10, &[1.0, 1.0, 1.0]), [0..3, 3..6, 6..10]);
/// assert_eq!(ranges(10, &[3.0, 1.0]), [0..8, 8..10]);
/// assert_eq!(ranges(1, &[1.0, 1.0, 1.0]), [0..0, 0..0, 0..1]);
/// ```
///
/// # Panics
/// When `weights` is empty, or a weight is not finite and positive.
pub fn ranges(n: usize, weights: &[f64]) -> Vec<Range<usize>> {
    assert!(!weights.is_empty(), "ranges: no weights (no devices)");
    assert!(
        weights.iter().all(|w| w.is_finite() && *w > 0.0),
        "ranges: every weight must be finite and positive, got {weights:?}"
    );
    let p = weights.len();
    let ends: Vec<usize> = if weights.iter().all(|&w| w == weights[0]) {
        // Integer arithmetic: exact for any n.
        (1..=p)
            .map(|i| (n as u128 * i as u128 / p as u128) as usize)
            .collect()
    } else {
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let mut ends: Vec<usize> = weights
            .iter()
            .map(|w| {
                acc += w;
                ((n as f64 * acc / total).round() as usize).min(n)
            })
            .collect();
        ends[p - 1] = n;
        // Rounding never reorders the ends (the prefix sums only grow), but keep it certain.
        for i in 1..p {
            ends[i] = ends[i].max(ends[i - 1]);
        }
        ends
    };
    let mut start = 0;
    ends.into_iter()
        .map(|end| {
            let r = start..end;
            start = end;
            r
        })
        .collect()
}

/// One plane as the caller gave it.
#[derive(Debug)]
pub(crate) enum Given<'a, R> {
    In(&'a [R]),
    Param(R),
    Table(Vec<R>),
    Mut(&'a mut [R]),
}

/// The caller's planes, collected from any [`PlaneSource`] (a typed planes struct or a
/// [`PlaneSet`]), in the order given.
#[derive(Debug, Default)]
pub(crate) struct Collected<'a, R> {
    pub given: Vec<(String, Given<'a, R>)>,
}

impl<'a, R: Real> PlaneVisitor<'a, R> for Collected<'a, R> {
    fn input(&mut self, name: &str, index: Option<usize>, data: &'a [R]) {
        let name = ComponentName(name, index).to_string();
        self.given.push((name, Given::In(data)));
    }
    fn param(&mut self, name: &str, value: R) {
        self.given.push((name.into(), Given::Param(value)));
    }
    fn table(&mut self, name: &str, values: &[R]) {
        self.given
            .push((name.into(), Given::Table(values.to_vec())));
    }
    fn mutable(&mut self, name: &str, index: Option<usize>, data: &'a mut [R]) {
        let name = ComponentName(name, index).to_string();
        self.given.push((name, Given::Mut(data)));
    }
}

/// Planes checked against `K`, by role in `K`'s declaration order: what a shard needs to
/// rebuild a [`PlaneSet`] (names come from `K::PLANES`).
#[derive(Debug)]
pub(crate) struct Ordered<'a, R> {
    pub ins: Vec<&'a [R]>,
    pub params: Vec<R>,
    pub muts: Vec<&'a mut [R]>,
    pub n: usize,
}

/// A plane set over borrowed planes in `K`'s role order.
pub(crate) fn plane_set<'b, K: Kernel>(
    ins: impl IntoIterator<Item = &'b [K::Real]>,
    params: &[K::Real],
    muts: impl IntoIterator<Item = &'b mut [K::Real]>,
) -> PlaneSet<'b, K::Real> {
    PlaneSet::from_roles::<K>(ins, params, muts)
}

impl<'a, R: Real> Collected<'a, R> {
    /// Collects `planes` (nothing is checked yet).
    pub fn collect(planes: impl PlaneSource<'a, R>) -> Self {
        let mut c = Collected { given: Vec::new() };
        planes.visit(&mut c);
        c
    }

    /// The planes as given, reborrowed into a plane set (for the runtime's own checks).
    fn reborrow(&mut self) -> PlaneSet<'_, R> {
        let mut set = PlaneSet::new();
        for (name, g) in &mut self.given {
            set = match g {
                Given::In(d) => set.input(name, d),
                Given::Param(p) => set.param(name, *p),
                Given::Table(d) => set.table(name, d),
                Given::Mut(d) => set.mutable(name, d),
            };
        }
        set
    }

    /// Checks the planes and `options` against `K` exactly as one process would
    /// (`until_done` on `deployed`, so the errors are the runtime's own, word for word)
    /// and puts them in `K`'s declaration order. Nothing runs and nothing is changed; the
    /// check allocates a few bytes per sample for as long as it lasts. With `allow_empty`,
    /// planes of length 0 (one rank's empty share) pass when nothing else is wrong.
    pub fn check<K: Kernel<Real = R>>(
        mut self,
        deployed: &Deployed<K>,
        options: &Options,
        allow_empty: bool,
    ) -> Result<Ordered<'a, R>, Error>
    where
        R: HostReal,
    {
        let n = match until_done(deployed, options.clone(), self.reborrow()) {
            Ok(runner) => runner.len(),
            // The runtime checks for an empty ensemble last: everything else is right.
            Err(Error::Empty { .. }) if allow_empty => 0,
            Err(e) => return Err(e),
        };
        let mut take = |name: &str| {
            let i = self
                .given
                .iter()
                .position(|(g, _)| *g == name)
                .expect("until_done checked that every plane is given once");
            self.given.swap_remove(i).1
        };
        let mut out = Ordered {
            ins: Vec::new(),
            params: Vec::new(),
            muts: Vec::new(),
            n,
        };
        for spec in K::PLANES {
            let names: Vec<String> = match (spec.role, spec.len) {
                (Role::Param, _) | (_, None) => vec![spec.name.to_owned()],
                (_, Some(n)) => (0..n)
                    .map(|j| ComponentName(spec.name, Some(j)).to_string())
                    .collect(),
            };
            for name in names {
                match take(&name) {
                    Given::In(d) => out.ins.push(d),
                    Given::Param(p) => out.params.push(p),
                    Given::Table(values) => out.params.extend(values),
                    Given::Mut(d) => out.muts.push(d),
                }
            }
        }
        Ok(out)
    }
}

/// One shard's planes: sub-slices of the caller's.
#[derive(Debug)]
pub(crate) struct Piece<'a, R> {
    pub range: Range<usize>,
    pub ins: Vec<&'a [R]>,
    pub muts: Vec<&'a mut [R]>,
}

impl<'a, R: Real> Ordered<'a, R> {
    /// Cuts every per-sample plane at the ranges (contiguous, in order, covering `0..n`).
    pub fn cut(self, ranges: &[Range<usize>]) -> (Vec<R>, Vec<Piece<'a, R>>) {
        debug_assert_eq!(ranges.last().map_or(0, |r| r.end), self.n);
        let mut ins = self.ins;
        let mut muts = self.muts;
        let pieces = ranges
            .iter()
            .map(|r| {
                let len = r.len();
                let ins = ins
                    .iter_mut()
                    .map(|d| {
                        let (head, tail) = d.split_at(len);
                        *d = tail;
                        head
                    })
                    .collect();
                let muts = muts
                    .iter_mut()
                    .map(|d| {
                        let (head, tail) = std::mem::take(d).split_at_mut(len);
                        *d = tail;
                        head
                    })
                    .collect();
                Piece {
                    range: r.clone(),
                    ins,
                    muts,
                }
            })
            .collect();
        (self.params, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_in_order_and_follow_the_weights() {
        for n in [0, 1, 2, 3, 7, 100, 1001] {
            for w in [
                vec![1.0],
                vec![1.0, 1.0],
                vec![1.0, 1.0, 1.0],
                vec![2.0, 1.0, 1.0],
                vec![0.1, 5.0, 1e-3],
            ] {
                let r = ranges(n, &w);
                assert_eq!(r.len(), w.len());
                assert_eq!(r[0].start, 0);
                assert_eq!(r.last().unwrap().end, n);
                for pair in r.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start, "{n} {w:?} {r:?}");
                }
                let total: f64 = w.iter().sum();
                for (ri, wi) in r.iter().zip(&w) {
                    let ideal = n as f64 * wi / total;
                    assert!((ri.len() as f64 - ideal).abs() <= 1.0, "{n} {w:?} {r:?}");
                }
            }
        }
        // Equal weights: exact for huge n (10^10 samples on 64 devices).
        let r = ranges(10_000_000_000, &[1.0; 64]);
        assert_eq!(r[63].end, 10_000_000_000);
        assert!(r.iter().all(|x| x.len() == 156_250_000));
    }

    #[test]
    #[should_panic(expected = "finite and positive")]
    fn a_zero_weight_is_refused() {
        ranges(10, &[1.0, 0.0]);
    }
}
