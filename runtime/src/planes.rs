//! Planes as the caller gives them, and their validation against a kernel's declaration.

use crate::error::Error;
use hawk::{ComponentName, Kernel, PlaneSource, PlaneSpec, PlaneVisitor, Real, Role};

/// Planes given by name at run time, for when a typed planes struct does not fit
/// (names from a config file, generic tools). Checked against the kernel at `until_done`.
/// An array plane's components are named `x[0]`, `x[1]`, ... (give them one by one, or
/// all at once with [`PlaneSet::mutable_array`] / [`PlaneSet::input_array`]); a table is
/// given whole ([`PlaneSet::table`]).
///
/// ```
/// # use eagle_runtime::PlaneSet;
/// let omega = vec![1.0, 2.0];
/// let (mut x, mut v, mut t) = (vec![1.0; 2], vec![0.0; 2], vec![0.0; 2]);
/// let planes = PlaneSet::new()
///     .input("omega", &omega)
///     .param("t_end", 1.0)
///     .param("dt", 1e-3)
///     .mutable("x", &mut x)
///     .mutable("v", &mut v)
///     .mutable("t", &mut t);
/// # let _ = planes;
/// ```
#[derive(Debug, Default)]
pub struct PlaneSet<'a, R> {
    given: Vec<(String, Given<'a, R>)>,
}

#[derive(Debug)]
enum Given<'a, R> {
    In(&'a [R]),
    Param(R),
    Table(Vec<R>),
    Mut(&'a mut [R]),
}

impl<'a, R: Real> PlaneSet<'a, R> {
    /// An empty set.
    pub fn new() -> Self {
        Self { given: Vec::new() }
    }
    /// Adds a read-only per-sample plane (or one component, `u[2]`).
    pub fn input(mut self, name: &str, data: &'a [R]) -> Self {
        self.given.push((name.to_owned(), Given::In(data)));
        self
    }
    /// Adds every component of a read-only array plane, `name[0]` first.
    pub fn input_array(
        mut self,
        name: &str,
        components: impl IntoIterator<Item = &'a [R]>,
    ) -> Self {
        for (j, d) in components.into_iter().enumerate() {
            self.given.push((component(name, Some(j)), Given::In(d)));
        }
        self
    }
    /// Adds a value shared by all samples.
    pub fn param(mut self, name: &str, value: R) -> Self {
        self.given.push((name.to_owned(), Given::Param(value)));
        self
    }
    /// Adds a table: values shared by all samples (`&[Param; M]`).
    pub fn table(mut self, name: &str, values: &[R]) -> Self {
        self.given
            .push((name.to_owned(), Given::Table(values.to_vec())));
        self
    }
    /// Adds a per-sample plane the kernel advances (or one component, `x[2]`).
    pub fn mutable(mut self, name: &str, data: &'a mut [R]) -> Self {
        self.given.push((name.to_owned(), Given::Mut(data)));
        self
    }
    /// Adds every component of an array plane the kernel advances, `name[0]` first.
    pub fn mutable_array(
        mut self,
        name: &str,
        components: impl IntoIterator<Item = &'a mut [R]>,
    ) -> Self {
        for (j, d) in components.into_iter().enumerate() {
            self.given.push((component(name, Some(j)), Given::Mut(d)));
        }
        self
    }
}

impl<'a, R: Real> PlaneSet<'a, R> {
    /// Kernel `K`'s planes from lists in role order, as [`Kernel::step`] takes them (an
    /// array plane's components one after another, a table's values in its place): for
    /// tools that hold an ensemble as lists. Lists of other lengths than `K`'s are refused
    /// by `until_done`, as any plane set of the wrong shape.
    pub fn from_roles<K: Kernel<Real = R>>(
        ins: impl IntoIterator<Item = &'a [R]>,
        params: &[R],
        muts: impl IntoIterator<Item = &'a mut [R]>,
    ) -> Self {
        let mut set = PlaneSet::new();
        for (name, d) in component_names::<K>(Role::In).zip(ins) {
            set = set.input(&name, d);
        }
        let mut at = 0;
        for p in K::PLANES.iter().filter(|p| p.role == Role::Param) {
            let end = (at + p.width()).min(params.len());
            set = match p.len {
                None if at < end => set.param(p.name, params[at]),
                None => set,
                Some(_) => set.table(p.name, &params[at..end]),
            };
            at = end;
        }
        for (name, d) in component_names::<K>(Role::Mut).zip(muts) {
            set = set.mutable(&name, d);
        }
        set
    }
}

impl<'a, R: Real> PlaneSource<'a, R> for PlaneSet<'a, R> {
    fn visit(self, v: &mut impl PlaneVisitor<'a, R>) {
        for (name, g) in self.given {
            match g {
                Given::In(d) => v.input(&name, None, d),
                Given::Param(p) => v.param(&name, p),
                Given::Table(d) => v.table(&name, &d),
                Given::Mut(d) => v.mutable(&name, None, d),
            }
        }
    }
}

/// A name as every name at run time spells it: `x`, or component `j` of array plane `x`,
/// `x[j]`.
pub(crate) fn component(name: &str, index: Option<usize>) -> String {
    ComponentName(name, index).to_string()
}

/// The per-sample components of kernel `K` of `role` (`In` or `Mut`), by name, in the
/// order of the role's array: an array plane gives `x[0]` to `x[N-1]`.
pub fn component_names<K: Kernel>(role: Role) -> impl Iterator<Item = String> {
    K::PLANES
        .iter()
        .filter(move |p| p.role == role)
        .flat_map(|p| match p.len {
            None => vec![p.name.to_owned()],
            Some(n) => (0..n).map(|j| component(p.name, Some(j))).collect(),
        })
}

/// The per-sample components of kernel `K` (inputs and mutables, in declaration order,
/// array planes expanded): `(name, role)`.
pub(crate) fn per_sample_components<K: Kernel>() -> impl Iterator<Item = (String, Role)> {
    K::PLANES
        .iter()
        .filter(|p| p.role != Role::Param)
        .flat_map(|p| match p.len {
            None => vec![(p.name.to_owned(), p.role)],
            Some(n) => (0..n)
                .map(|j| (component(p.name, Some(j)), p.role))
                .collect(),
        })
}

/// An array plane's `N` components from one component-major buffer (`N x n`: component 0's
/// `n` values, then component 1's, ...), for a typed planes struct's array field; no copy.
///
/// ```
/// # use eagle_runtime::components_mut;
/// let mut state = vec![0.0; 3 * 4]; // 3 components, 4 samples
/// let [x0, x1, x2] = components_mut::<f64, 3>(&mut state).unwrap();
/// assert_eq!((x0.len(), x1.len(), x2.len()), (4, 4, 4));
/// ```
pub fn components_mut<R, const N: usize>(buffer: &mut [R]) -> Result<[&mut [R]; N], Error> {
    let n = samples_in::<N>(buffer.len())?;
    let mut parts = buffer.chunks_exact_mut(n.max(1));
    Ok(std::array::from_fn(|_| parts.next().unwrap_or_default()))
}

/// [`components_mut`] for a read-only array plane.
pub fn components<R, const N: usize>(buffer: &[R]) -> Result<[&[R]; N], Error> {
    let n = samples_in::<N>(buffer.len())?;
    let mut parts = buffer.chunks_exact(n.max(1));
    Ok(std::array::from_fn(|_| parts.next().unwrap_or_default()))
}

/// The samples in a component-major buffer of `len` values for `N` components.
fn samples_in<const N: usize>(len: usize) -> Result<usize, Error> {
    if N == 0 || !len.is_multiple_of(N) {
        return Err(Error::ComponentBuffer { components: N, len });
    }
    Ok(len / N)
}

/// Planes checked against a kernel and put in its declaration order, by role (array
/// planes and tables expanded: one entry per component or value).
pub(crate) struct Bound<'a, R> {
    pub ins: Vec<&'a [R]>,
    pub params: Vec<R>,
    pub muts: Vec<&'a mut [R]>,
    pub n: usize,
}

impl<R> Bound<'_, R> {
    /// The `j`-th per-sample component (inputs and mutables, in the kernel's declaration
    /// order, array planes expanded).
    pub fn per_sample<K: Kernel<Real = R>>(&self, j: usize) -> &[R] {
        let (name, role) = per_sample_components::<K>()
            .nth(j)
            .expect("index of a per-sample component");
        let nth = component_names::<K>(role)
            .position(|n| n == name)
            .expect("component is in its role list");
        match role {
            Role::In => self.ins[nth],
            _ => self.muts[nth],
        }
    }
}

/// The planes as given, by name (owned: a [`PlaneSet`]'s names live only as long as it).
#[derive(Default)]
struct Collect<'a, R> {
    given: Vec<(String, Given<'a, R>)>,
}

impl<'a, R: Real> PlaneVisitor<'a, R> for Collect<'a, R> {
    fn input(&mut self, name: &str, index: Option<usize>, data: &'a [R]) {
        self.given.push((component(name, index), Given::In(data)));
    }
    fn param(&mut self, name: &str, value: R) {
        self.given.push((name.to_owned(), Given::Param(value)));
    }
    fn table(&mut self, name: &str, values: &[R]) {
        self.given
            .push((name.to_owned(), Given::Table(values.to_vec())));
    }
    fn mutable(&mut self, name: &str, index: Option<usize>, data: &'a mut [R]) {
        self.given.push((component(name, index), Given::Mut(data)));
    }
}

/// How a given plane was given, as its role's spelling.
fn given_as<R>(g: &Given<'_, R>) -> &'static str {
    match g {
        Given::In(_) => "Scalar",
        Given::Param(_) => "Param",
        Given::Table(_) => "a table",
        Given::Mut(_) => "&mut Scalar",
    }
}

/// The names the kernel takes, for messages: `x`, `u[0..40]`, `w` (a table).
fn known<K: Kernel>() -> String {
    K::PLANES
        .iter()
        .map(|p| match (p.role, p.len) {
            (Role::Param, _) | (_, None) => p.name.to_owned(),
            (_, Some(n)) => format!("{}[0..{n}]", p.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks names, roles, lengths and params; nothing is copied or changed.
pub(crate) fn bind<'a, K: Kernel>(
    planes: impl PlaneSource<'a, K::Real>,
) -> Result<Bound<'a, K::Real>, Error> {
    let mut c = Collect::default();
    planes.visit(&mut c);
    let mut given = c.given;
    // Every name the kernel takes, with its plane.
    let expected: Vec<(String, &PlaneSpec)> = K::PLANES
        .iter()
        .flat_map(|p| match (p.role, p.len) {
            (Role::Param, _) | (_, None) => vec![(p.name.to_owned(), p)],
            (_, Some(n)) => (0..n).map(|j| (component(p.name, Some(j)), p)).collect(),
        })
        .collect();
    for (i, (name, _)) in given.iter().enumerate() {
        if given[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::DuplicatePlane {
                plane: name.to_string(),
            });
        }
        if !expected.iter().any(|(n, _)| n == name) {
            return Err(Error::UnknownPlane {
                kernel: K::NAME,
                plane: name.to_string(),
                known: known::<K>(),
            });
        }
    }
    let mut out = Bound {
        ins: Vec::new(),
        params: Vec::new(),
        muts: Vec::new(),
        n: 0,
    };
    let mut reference: Option<(String, usize)> = None;
    for (name, spec) in expected {
        let pos =
            given
                .iter()
                .position(|(n, _)| *n == name)
                .ok_or_else(|| Error::MissingPlane {
                    kernel: K::NAME,
                    plane: name.clone(),
                    role: spec.spelled().to_string(),
                })?;
        let (_, g) = given.swap_remove(pos);
        let fits = matches!(
            (&g, spec.role, spec.len),
            (Given::In(_), Role::In, _)
                | (Given::Mut(_), Role::Mut, _)
                | (Given::Param(_), Role::Param, None)
                | (Given::Table(_), Role::Param, Some(_))
        );
        if !fits {
            return Err(Error::WrongRole {
                kernel: K::NAME,
                plane: name,
                expected: spec.spelled().to_string(),
                given: given_as(&g),
            });
        }
        let len = match &g {
            Given::In(d) => Some(d.len()),
            Given::Mut(d) => Some(d.len()),
            Given::Param(_) | Given::Table(_) => None,
        };
        if let Some(len) = len {
            match &reference {
                None => reference = Some((name.clone(), len)),
                Some((r, expected)) if *expected != len => {
                    return Err(Error::LengthMismatch {
                        plane: name,
                        len,
                        reference: r.clone(),
                        expected: *expected,
                    });
                }
                Some(_) => {}
            }
        }
        let finite = |value: K::Real, plane: String| {
            if value.finite() {
                Ok(value)
            } else {
                Err(Error::NonFiniteParam {
                    plane,
                    value: value.to_f64(),
                })
            }
        };
        match g {
            Given::In(d) => {
                check_counters::<K>(&name, d)?;
                out.ins.push(d)
            }
            Given::Mut(d) => {
                check_counters::<K>(&name, d)?;
                out.muts.push(d)
            }
            Given::Param(p) => {
                let p = finite(p, name.clone())?;
                check_counters::<K>(&name, &[p])?;
                if K::POSITIVE.contains(&name.as_str()) && p.to_f64() <= 0.0 {
                    return Err(Error::ParamNotPositive {
                        kernel: K::NAME,
                        plane: name,
                        value: p.to_f64(),
                    });
                }
                out.params.push(p)
            }
            Given::Table(values) => {
                let m = spec.width();
                if values.len() != m {
                    return Err(Error::TableLength {
                        kernel: K::NAME,
                        plane: name,
                        expected: m,
                        given: values.len(),
                    });
                }
                for (j, &v) in values.iter().enumerate() {
                    out.params.push(finite(v, component(&name, Some(j)))?);
                }
            }
        }
    }
    let (first, n) = reference.expect("#[kernel] guarantees a &mut Scalar plane");
    if n == 0 {
        return Err(Error::Empty { plane: first });
    }
    out.n = n;
    Ok(out)
}

/// Refuses a value of a counter plane or param (`Kernel::COUNTERS`) that is not a whole
/// number from 0 to below `hawk::random::counter_limit`.
fn check_counters<K: Kernel>(name: &str, values: &[K::Real]) -> Result<(), Error> {
    if !K::COUNTERS.contains(&name) {
        return Ok(());
    }
    let limit = hawk::random::counter_limit::<K::Real>();
    match values
        .iter()
        .map(|v| v.to_f64())
        .enumerate()
        .find(|&(_, v)| !(v >= 0.0 && v < limit && v.fract() == 0.0))
    {
        None => Ok(()),
        Some((sample, value)) => Err(Error::NotACounter {
            kernel: K::NAME,
            plane: name.to_owned(),
            sample,
            value,
            limit,
        }),
    }
}
