//! Planes as the caller gives them, and their validation against a kernel's declaration.

use crate::error::Error;
use hawk::{Kernel, PlaneSource, PlaneVisitor, Real, Role};

/// Planes given by name at run time, for when a typed planes struct does not fit
/// (names from a config file, generic tools). Checked against the kernel at `until_done`.
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
    Mut(&'a mut [R]),
}

impl<'a, R: Real> PlaneSet<'a, R> {
    /// An empty set.
    pub fn new() -> Self {
        Self { given: Vec::new() }
    }
    /// Adds a read-only per-sample plane.
    pub fn input(mut self, name: &str, data: &'a [R]) -> Self {
        self.given.push((name.to_owned(), Given::In(data)));
        self
    }
    /// Adds a value shared by all samples.
    pub fn param(mut self, name: &str, value: R) -> Self {
        self.given.push((name.to_owned(), Given::Param(value)));
        self
    }
    /// Adds a per-sample plane the kernel advances.
    pub fn mutable(mut self, name: &str, data: &'a mut [R]) -> Self {
        self.given.push((name.to_owned(), Given::Mut(data)));
        self
    }
}

impl<'a, R: Real> PlaneSource<'a, R> for PlaneSet<'a, R> {
    fn visit(self, v: &mut impl PlaneVisitor<'a, R>) {
        for (name, g) in self.given {
            match g {
                Given::In(d) => v.input(&name, d),
                Given::Param(p) => v.param(&name, p),
                Given::Mut(d) => v.mutable(&name, d),
            }
        }
    }
}

/// Planes checked against a kernel and put in its declaration order, by role.
pub(crate) struct Bound<'a, R> {
    pub ins: Vec<&'a [R]>,
    pub params: Vec<R>,
    pub muts: Vec<&'a mut [R]>,
    pub n: usize,
}

impl<R> Bound<'_, R> {
    /// The `j`-th per-sample plane (inputs and mutables, in the kernel's declaration order).
    pub fn per_sample<K: Kernel<Real = R>>(&self, j: usize) -> &[R] {
        let spec = K::PLANES.iter().filter(|s| s.role != Role::Param).nth(j);
        let spec = spec.expect("index from K::PLANES");
        let nth_of = |role: Role| {
            K::PLANES
                .iter()
                .filter(|s| s.role == role)
                .position(|s| s.name == spec.name)
                .expect("plane is in its role list")
        };
        match spec.role {
            Role::In => self.ins[nth_of(Role::In)],
            _ => self.muts[nth_of(Role::Mut)],
        }
    }
}

/// The planes as given, by name (owned: a [`PlaneSet`]'s names live only as long as it).
#[derive(Default)]
struct Collect<'a, R> {
    given: Vec<(String, Given<'a, R>)>,
}

impl<'a, R: Real> PlaneVisitor<'a, R> for Collect<'a, R> {
    fn input(&mut self, name: &str, data: &'a [R]) {
        self.given.push((name.to_owned(), Given::In(data)));
    }
    fn param(&mut self, name: &str, value: R) {
        self.given.push((name.to_owned(), Given::Param(value)));
    }
    fn mutable(&mut self, name: &str, data: &'a mut [R]) {
        self.given.push((name.to_owned(), Given::Mut(data)));
    }
}

fn role_of<R>(g: &Given<'_, R>) -> Role {
    match g {
        Given::In(_) => Role::In,
        Given::Param(_) => Role::Param,
        Given::Mut(_) => Role::Mut,
    }
}

/// Checks names, roles, lengths and params; nothing is copied or changed.
pub(crate) fn bind<'a, K: Kernel>(
    planes: impl PlaneSource<'a, K::Real>,
) -> Result<Bound<'a, K::Real>, Error> {
    let mut c = Collect::default();
    planes.visit(&mut c);
    let mut given = c.given;
    for (i, (name, _)) in given.iter().enumerate() {
        if given[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::DuplicatePlane {
                plane: name.to_string(),
            });
        }
        if !K::PLANES.iter().any(|p| p.name == *name) {
            return Err(Error::UnknownPlane {
                kernel: K::NAME,
                plane: name.to_string(),
                known: K::PLANES
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
    }
    let mut out = Bound {
        ins: Vec::new(),
        params: Vec::new(),
        muts: Vec::new(),
        n: 0,
    };
    let mut reference: Option<(&'static str, usize)> = None;
    for spec in K::PLANES {
        let pos = given
            .iter()
            .position(|(n, _)| *n == spec.name)
            .ok_or(Error::MissingPlane {
                kernel: K::NAME,
                plane: spec.name,
                role: spec.role.spelled(),
            })?;
        let (_, g) = given.swap_remove(pos);
        if role_of(&g) != spec.role {
            return Err(Error::WrongRole {
                kernel: K::NAME,
                plane: spec.name,
                expected: spec.role.spelled(),
                given: role_of(&g).spelled(),
            });
        }
        let len = match &g {
            Given::In(d) => Some(d.len()),
            Given::Mut(d) => Some(d.len()),
            Given::Param(_) => None,
        };
        if let Some(len) = len {
            match reference {
                None => reference = Some((spec.name, len)),
                Some((r, expected)) if expected != len => {
                    return Err(Error::LengthMismatch {
                        plane: spec.name,
                        len,
                        reference: r,
                        expected,
                    });
                }
                Some(_) => {}
            }
        }
        match g {
            Given::In(d) => out.ins.push(d),
            Given::Mut(d) => out.muts.push(d),
            Given::Param(p) => {
                if !p.finite() {
                    return Err(Error::NonFiniteParam {
                        plane: spec.name,
                        value: p.to_f64(),
                    });
                }
                out.params.push(p)
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
