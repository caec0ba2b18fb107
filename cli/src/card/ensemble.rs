//! An owned ensemble for one kernel: planes in role order, a copy of the initial state,
//! a run on any deployed team, and the plain rayon + scalar baseline.

use eagle::{Deployed, Options, PlaneSet, RunReport};
use hawk::{Kernel, LaneArray, Role};
use hawk_host::HostReal;
use rayon::prelude::*;

/// Planes of one kernel, owned, in the kernel's role order.
#[derive(Clone, Debug)]
pub struct Ensemble<K: Kernel> {
    /// Read-only per-sample planes.
    pub ins: Vec<Vec<K::Real>>,
    /// Shared parameters.
    pub params: Vec<K::Real>,
    /// Mutable planes (current contents).
    pub muts: Vec<Vec<K::Real>>,
    init: Vec<Vec<K::Real>>,
}

impl<K: Kernel> Ensemble<K>
where
    K::Real: HostReal,
{
    /// An ensemble from its planes (mutable planes are also kept as the initial state).
    pub fn new(ins: Vec<Vec<K::Real>>, params: Vec<K::Real>, muts: Vec<Vec<K::Real>>) -> Self {
        assert_eq!(ins.len(), K::count(Role::In));
        assert_eq!(params.len(), K::count(Role::Param));
        assert_eq!(muts.len(), K::count(Role::Mut));
        Ensemble {
            ins,
            params,
            init: muts.clone(),
            muts,
        }
    }

    /// Samples.
    pub fn len(&self) -> usize {
        self.muts[0].len()
    }

    /// `true` with no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Puts the mutable planes back to their initial state.
    pub fn reset(&mut self) {
        for (m, i) in self.muts.iter_mut().zip(&self.init) {
            m.copy_from_slice(i);
        }
    }

    /// The first `m` samples (or all, when there are fewer), in their initial state.
    pub fn head(&self, m: usize) -> Self {
        let m = m.min(self.len());
        let cut = |planes: &[Vec<K::Real>]| planes.iter().map(|p| p[..m].to_vec()).collect();
        Ensemble::new(cut(&self.ins), self.params.clone(), cut(&self.init))
    }

    /// Puts sample `order[i]` at position `i` in every plane (the initial state too).
    pub fn permute(&mut self, order: &[usize]) {
        for p in self
            .ins
            .iter_mut()
            .chain(self.muts.iter_mut())
            .chain(self.init.iter_mut())
        {
            *p = order.iter().map(|&i| p[i]).collect();
        }
    }

    /// Mutable plane `name`.
    pub fn plane(&self, name: &str) -> &[K::Real] {
        let j = eagle::component_names::<K>(Role::Mut).position(|n| n == name);
        &self.muts[j.unwrap_or_else(|| panic!("no mutable plane `{name}`"))]
    }

    /// Every plane by name, the mutable ones borrowed for writing.
    pub fn planes(&mut self) -> PlaneSet<'_, K::Real> {
        PlaneSet::from_roles::<K>(
            self.ins.iter().map(Vec::as_slice),
            &self.params,
            self.muts.iter_mut().map(Vec::as_mut_slice),
        )
    }

    /// Runs on a deployed team with `options` (from the current state); the deployed
    /// kernel is `K` or has its planes (e.g. `hawk::PortableLoops<K>`).
    pub fn run<D: Kernel<Real = K::Real>>(
        &mut self,
        deployed: &Deployed<D>,
        options: Options,
    ) -> Result<RunReport, eagle::Error> {
        let set = self.planes();
        let mut runner = eagle::until_done(deployed, options, set)?;
        let report = runner.run()?;
        runner.to_host()?;
        Ok(report)
    }

    /// The baseline: rayon over samples, each integrated to completion with scalar lanes
    /// (`K::step` on one `f64`/`f32` at a time). Returns the steps each sample took, in the
    /// caller's order: their sum is the useful work of the ensemble.
    pub fn baseline(&mut self, max_steps: u64) -> Vec<u64> {
        self.baseline_with(max_steps, K::step::<K::Real>)
    }

    /// [`Ensemble::baseline`] with another scalar step in place of `K::step` (the same
    /// planes in the same order; `done` as `K::step`'s `terminated`): e.g. the kernel's
    /// step written with std's math functions.
    pub fn baseline_with<S>(&mut self, max_steps: u64, step: S) -> Vec<u64>
    where
        S: Fn(&K::Ins<K::Real>, &K::Params<K::Real>, &mut K::Muts<K::Real>, &mut bool) + Sync,
    {
        let (ins, params) = (&self.ins, &self.params);
        let out: Vec<(K::Muts<K::Real>, u64)> = (0..self.len())
            .into_par_iter()
            .map(|i| {
                let inv = K::Ins::<K::Real>::from_fn(|j| ins[j][i]);
                let par = K::Params::<K::Real>::from_fn(|j| params[j]);
                let mut st = K::Muts::<K::Real>::from_fn(|j| self.muts[j][i]);
                let mut done = false;
                let mut steps = 0;
                while steps < max_steps && !done {
                    step(&inv, &par, &mut st, &mut done);
                    steps += 1;
                }
                (st, steps)
            })
            .collect();
        let mut lifetimes = Vec::with_capacity(out.len());
        for (i, (st, steps)) in out.into_iter().enumerate() {
            for (j, v) in st.as_slice().iter().enumerate() {
                self.muts[j][i] = *v;
            }
            lifetimes.push(steps);
        }
        lifetimes
    }
}
