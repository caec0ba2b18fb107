//! Accuracy of `hawk::math` against MPFR (`rug`): the error of every elementary function in
//! ulps of the exact result, over random arguments (log-uniform magnitudes over the whole
//! range and over each function's working range, both signs) plus special values.
//!
//! - CI: `cargo test --release -p hawk --test math_accuracy` (2 x 10^4 arguments per function
//!   and type) asserts at most 1 ulp.
//! - Full sweep: `cargo test --release -p hawk --test math_accuracy -- --ignored --nocapture`
//!   (10^6 per function and type) prints the table that is in the docs.
//! - `HAWK_MATH_ONLY=exp,ln` limits either sweep to the functions named.

use hawk::Lane;
use rug::Float;
use rug::ops::Pow;

/// Precision of the reference (bits).
const REF_PREC: u32 = 200;

/// splitmix64: a small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// `+-2^u`, `u` uniform in `[lo, hi]`, with a random significand.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let m = (lo + (hi - lo) * self.unit()).exp2();
        let m = if m.is_finite() { m } else { f64::MAX };
        if signed && self.next() & 1 == 1 {
            -m
        } else {
            m
        }
    }
}

/// Where a function's arguments are drawn: half log-uniform over `[2^lo, 2^hi]` (signed or
/// not), half log-uniform over every finite magnitude of the type, both signs.
#[derive(Clone, Copy)]
struct Dist {
    lo: f64,
    hi: f64,
    signed: bool,
}

const fn d(lo: f64, hi: f64, signed: bool) -> Dist {
    Dist { lo, hi, signed }
}

/// The floating-point type under test.
trait T: Copy + PartialEq + std::fmt::Debug + Lane<Elem = Self> + Send + Sync {
    const P: u32;
    const MIN_EXP: i32;
    const MAX_LOG2: f64;
    fn of(v: f64) -> Self;
    fn to(self) -> f64;
    fn nearest(f: &Float) -> f64;
    fn specials() -> Vec<Self>;
}

impl T for f64 {
    const P: u32 = 53;
    const MIN_EXP: i32 = -1074;
    const MAX_LOG2: f64 = 1024.0;
    fn of(v: f64) -> Self {
        v
    }
    fn to(self) -> f64 {
        self
    }
    fn nearest(f: &Float) -> f64 {
        f.to_f64()
    }
    fn specials() -> Vec<f64> {
        let mut v = vec![
            0.0,
            f64::INFINITY,
            f64::NAN,
            5e-324,
            2.2250738585072014e-308,
            2.225073858507201e-308,
            f64::MAX,
            1.0,
            0.5,
            2.0,
            1e22,
            1e300,
            f64::EPSILON,
            std::f64::consts::FRAC_PI_4,
            709.782712893384,
            709.7827128933841,
            -745.1332191019411,
            -745.1332191019412,
            -708.3964185322641,
            0.34657359027997264,
            6381956970095103.0 * 2f64.powi(797),
            5.319372648326541e255,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
            0.55,
            39.0 / 16.0,
            7.0 / 16.0,
        ];
        for k in (1..2000i64).chain([1 << 20, 1 << 29, (1 << 30) - 1, 1 << 40, 1 << 52]) {
            let x = k as f64 * std::f64::consts::FRAC_PI_2;
            v.extend([
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]);
        }
        let neg: Vec<f64> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v
    }
}

impl T for f32 {
    const P: u32 = 24;
    const MIN_EXP: i32 = -149;
    const MAX_LOG2: f64 = 128.0;
    fn of(v: f64) -> Self {
        v as f32
    }
    fn to(self) -> f64 {
        self as f64
    }
    fn nearest(f: &Float) -> f64 {
        f.to_f32() as f64
    }
    fn specials() -> Vec<f32> {
        let mut v = vec![
            0.0,
            f32::INFINITY,
            f32::NAN,
            1e-45,
            1.1754944e-38,
            1.1754942e-38,
            f32::MAX,
            1.0,
            0.5,
            2.0,
            1e22,
            1e38,
            f32::EPSILON,
            std::f32::consts::FRAC_PI_4,
            88.72283,
            88.72284,
            -103.97208,
            -103.972084,
            0.346_573_6,
            16367173.0 * 2f32.powi(72),
            1.0 - f32::EPSILON / 2.0,
            1.0 + f32::EPSILON,
            0.55,
        ];
        for k in (1..2000).chain([1 << 16, (1 << 17) - 1, 1 << 17, 1 << 20]) {
            let x = k as f32 * std::f32::consts::FRAC_PI_2;
            v.extend([
                x,
                f32::from_bits(x.to_bits() + 1),
                f32::from_bits(x.to_bits() - 1),
            ]);
        }
        let neg: Vec<f32> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v
    }
}

/// Error of `got` in ulps of `exact` (the ulp of the binade of `exact`, subnormal ulps
/// below the normal range). NaN must meet NaN; an infinite `got` must meet an `exact` that
/// rounds to the same infinity.
fn ulps<R: T>(got: R, exact: &Float) -> f64 {
    let g = got.to();
    if exact.is_nan() || g.is_nan() {
        return if exact.is_nan() && g.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let rounded = R::nearest(exact);
    if g.is_infinite() || exact.is_infinite() {
        return if g == rounded { 0.0 } else { f64::INFINITY };
    }
    let e = exact.get_exp().unwrap_or(i32::MIN / 2);
    let ue = (e - R::P as i32).max(R::MIN_EXP);
    let diff = Float::with_val(REF_PREC, Float::with_val(REF_PREC, g) - exact).abs();
    let u = Float::with_val(REF_PREC, Float::i_exp(1, ue));
    (diff / u).to_f64()
}

/// Special arguments must give exactly the IEEE 754 / C99 result (sign of zero included),
/// which the platform's libm gives for them.
fn same_special(got: f64, want: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got.to_bits() == want.to_bits()
}

/// A unary function: hawk's (both types), MPFR's, std's (for special values).
struct Unary {
    name: &'static str,
    h64: fn(f64) -> f64,
    h32: fn(f32) -> f32,
    mp: fn(Float) -> Float,
    std: fn(f64) -> f64,
    dist: Dist,
}

macro_rules! unary {
    ($name:ident, $mp:expr, $dist:expr) => {
        Unary {
            name: stringify!($name),
            h64: |x| <f64 as Lane>::$name(x),
            h32: |x| <f32 as Lane>::$name(x),
            mp: $mp,
            std: |x| f64::$name(x),
            dist: $dist,
        }
    };
}

fn unaries() -> Vec<Unary> {
    vec![
        unary!(sin, |x| x.sin(), d(-30.0, 12.0, true)),
        unary!(cos, |x| x.cos(), d(-30.0, 12.0, true)),
        unary!(tan, |x| x.tan(), d(-30.0, 12.0, true)),
        unary!(asin, |x| x.asin(), d(-30.0, 0.0, true)),
        unary!(acos, |x| x.acos(), d(-30.0, 0.0, true)),
        unary!(atan, |x| x.atan(), d(-30.0, 30.0, true)),
        unary!(sinh, |x| x.sinh(), d(-30.0, 6.5, true)),
        unary!(cosh, |x| x.cosh(), d(-30.0, 6.5, true)),
        unary!(tanh, |x| x.tanh(), d(-30.0, 5.0, true)),
        unary!(exp, |x| x.exp(), d(-30.0, 6.5, true)),
        unary!(exp2, |x| x.exp2(), d(-30.0, 7.0, true)),
        unary!(exp_m1, |x| x.exp_m1(), d(-30.0, 6.5, true)),
        unary!(ln, |x| x.ln(), d(-1.0, 1.0, false)),
        unary!(log2, |x| x.log2(), d(-1.0, 1.0, false)),
        unary!(log10, |x| x.log10(), d(-1.0, 1.0, false)),
        unary!(ln_1p, |x| x.ln_1p(), d(-40.0, 0.0, true)),
        unary!(cbrt, |x| x.cbrt(), d(-30.0, 30.0, true)),
        unary!(recip, |x| x.recip(), d(-30.0, 30.0, true)),
    ]
}

/// A binary function.
struct Binary {
    name: &'static str,
    h64: fn(f64, f64) -> f64,
    h32: fn(f32, f32) -> f32,
    mp: fn(Float, &Float) -> Float,
    std: fn(f64, f64) -> f64,
    /// Draws `(a, b)` from a generator.
    args: fn(&mut Rng) -> (f64, f64),
}

fn binaries() -> Vec<Binary> {
    vec![
        Binary {
            name: "atan2",
            h64: |y, x| <f64 as Lane>::atan2(y, x),
            h32: |y, x| <f32 as Lane>::atan2(y, x),
            mp: |y, x| y.atan2(x),
            std: f64::atan2,
            args: |r| {
                (
                    r.log_uniform(-30.0, 30.0, true),
                    r.log_uniform(-30.0, 30.0, true),
                )
            },
        },
        Binary {
            name: "hypot",
            h64: |x, y| <f64 as Lane>::hypot(x, y),
            h32: |x, y| <f32 as Lane>::hypot(x, y),
            mp: |x, y| x.hypot(y),
            std: f64::hypot,
            args: |r| {
                let a = r.log_uniform(-1000.0, 1000.0, true);
                (a, a * r.log_uniform(-30.0, 30.0, true))
            },
        },
        Binary {
            name: "powf",
            h64: |x, y| <f64 as Lane>::powf(x, y),
            h32: |x, y| <f32 as Lane>::powf(x, y),
            mp: |x, y| x.pow(y),
            std: f64::powf,
            args: |r| {
                let x = r.log_uniform(-12.0, 12.0, true);
                let y = if r.next() & 1 == 0 {
                    (r.log_uniform(0.0, 7.0, true)).round()
                } else {
                    r.log_uniform(-12.0, 8.0, true)
                };
                (x, y)
            },
        },
    ]
}

/// Max error and where, over `n` random arguments plus (if `specials`) the special ones.
struct Worst {
    ulps: f64,
    at: String,
}

impl Worst {
    fn new() -> Self {
        Worst {
            ulps: 0.0,
            at: String::new(),
        }
    }
    fn see(&mut self, e: f64, at: impl FnOnce() -> String) {
        if e > self.ulps
            || (e.is_nan() && !self.ulps.is_nan())
            || (e == self.ulps && e.is_infinite() && self.at.len() < 400)
        {
            if e.is_infinite() && self.ulps.is_infinite() {
                self.at += "; ";
                self.at += &at();
                return;
            }
            self.ulps = e;
            self.at = at();
        }
    }
}

fn draw<R: T>(rng: &mut Rng, dist: Dist) -> R {
    let v = if rng.next() & 1 == 0 {
        rng.log_uniform(dist.lo, dist.hi, dist.signed)
    } else {
        rng.log_uniform(R::MIN_EXP as f64, R::MAX_LOG2, true)
    };
    R::of(v)
}

fn check_unary<R: T>(f: &Unary, h: fn(R) -> R, n: usize, seed: u64) -> Worst {
    let mut w = Worst::new();
    let mut rng = Rng(seed);
    let mut args: Vec<R> = R::specials();
    let specials = args.len();
    args.extend((0..n).map(|_| draw::<R>(&mut rng, f.dist)));
    for (i, &x) in args.iter().enumerate() {
        let got = h(x);
        let exact = (f.mp)(Float::with_val(REF_PREC, x.to()));
        w.see(ulps(got, &exact), || format!("{:e}", x.to()));
        let xf = x.to();
        if i < specials && (xf == 0.0 || !xf.is_finite()) {
            let want = R::of((f.std)(xf)).to();
            if !same_special(got.to(), want) {
                w.see(f64::INFINITY, || {
                    format!("special {xf:e}: {:e}, want {want:e}", got.to())
                });
            }
        }
    }
    w
}

fn check_binary<R: T>(f: &Binary, h: fn(R, R) -> R, n: usize, seed: u64) -> Worst {
    let mut w = Worst::new();
    let mut rng = Rng(seed);
    let sp = R::specials();
    let edge: Vec<R> = sp
        .iter()
        .copied()
        .filter(|x| !x.to().is_finite() || x.to().abs() <= 2.0)
        .collect();
    let mut args: Vec<(R, R, bool)> = Vec::new();
    for &a in &edge {
        for &b in &edge {
            args.push((a, b, true));
        }
    }
    args.extend((0..n).map(|_| {
        let (a, b) = (f.args)(&mut rng);
        (R::of(a), R::of(b), false)
    }));
    for &(a, b, special) in &args {
        let got = h(a, b);
        let (af, bf) = (a.to(), b.to());
        let exact = (f.mp)(
            Float::with_val(REF_PREC, af),
            &Float::with_val(REF_PREC, bf),
        );
        w.see(ulps(got, &exact), || format!("({af:e}, {bf:e})"));
        let sv = |v: f64| v == 0.0 || !v.is_finite();
        if special && (sv(af) || sv(bf)) {
            let want = R::of((f.std)(af, bf)).to();
            if !same_special(got.to(), want) {
                let g = got.to();
                w.see(f64::INFINITY, || {
                    format!("special ({af:e}, {bf:e}): {g:e}, want {want:e}")
                });
            }
        }
    }
    w
}

/// Every function in both types: `(name, type, worst)`, computed on all cores.
/// Only the functions named in `HAWK_MATH_ONLY` (comma separated), if it is set.
fn wanted(name: &str) -> bool {
    std::env::var("HAWK_MATH_ONLY").map_or(true, |v| v.split(',').any(|f| f.trim() == name))
}

fn sweep(n: usize) -> Vec<(&'static str, &'static str, Worst)> {
    let un = unaries();
    let bi = binaries();
    std::thread::scope(|s| {
        let mut hs = Vec::new();
        // filtered here, so that every function keeps its seed
        for (i, f) in un.iter().enumerate().filter(|(_, f)| wanted(f.name)) {
            let seed = 1000 + i as u64;
            hs.push(s.spawn(move || (f.name, "f64", check_unary::<f64>(f, f.h64, n, seed))));
            hs.push(s.spawn(move || (f.name, "f32", check_unary::<f32>(f, f.h32, n, seed))));
        }
        for (i, f) in bi.iter().enumerate().filter(|(_, f)| wanted(f.name)) {
            let seed = 2000 + i as u64;
            hs.push(s.spawn(move || (f.name, "f64", check_binary::<f64>(f, f.h64, n, seed))));
            hs.push(s.spawn(move || (f.name, "f32", check_binary::<f32>(f, f.h32, n, seed))));
        }
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn report(rows: &[(&str, &str, Worst)]) -> bool {
    let mut ok = true;
    println!("| function | type | max ulp | at |");
    println!("| --- | --- | --- | --- |");
    for (name, ty, w) in rows {
        println!("| {name} | {ty} | {:.3} | {} |", w.ulps, w.at);
        ok &= w.ulps <= 1.0;
    }
    ok
}

#[test]
fn at_most_one_ulp() {
    let rows = sweep(20_000);
    assert!(report(&rows), "some function is above 1 ulp (table above)");
}

#[test]
#[ignore = "full sweep: 10^6 arguments per function and type (minutes)"]
fn at_most_one_ulp_full() {
    let rows = sweep(1_000_000);
    assert!(report(&rows), "some function is above 1 ulp (table above)");
}

/// The rounding and sign functions are exact: the same bits as std's, on every special
/// value and on random arguments of every magnitude.
#[test]
fn rounding_functions_are_exact() {
    type F = fn(f64) -> f64;
    let cases: [(&str, F, F); 7] = [
        ("floor", |x| <f64 as Lane>::floor(x), f64::floor),
        ("ceil", |x| <f64 as Lane>::ceil(x), f64::ceil),
        ("round", |x| <f64 as Lane>::round(x), f64::round),
        ("trunc", |x| <f64 as Lane>::trunc(x), f64::trunc),
        ("fract", |x| <f64 as Lane>::fract(x), f64::fract),
        ("signum", |x| <f64 as Lane>::signum(x), f64::signum),
        (
            "copysign",
            |x| <f64 as Lane>::copysign(1.5, x),
            |x| 1.5f64.copysign(x),
        ),
    ];
    type G = fn(f32) -> f32;
    let cases32: [(&str, G, G); 6] = [
        ("floor", |x| <f32 as Lane>::floor(x), f32::floor),
        ("ceil", |x| <f32 as Lane>::ceil(x), f32::ceil),
        ("round", |x| <f32 as Lane>::round(x), f32::round),
        ("trunc", |x| <f32 as Lane>::trunc(x), f32::trunc),
        ("fract", |x| <f32 as Lane>::fract(x), f32::fract),
        ("signum", |x| <f32 as Lane>::signum(x), f32::signum),
    ];
    let mut rng = Rng(7);
    let mut xs = f64::specials();
    xs.extend([
        0.5,
        1.5,
        2.5,
        -0.5,
        -2.5,
        0.49999999999999994,
        4503599627370495.5,
    ]);
    xs.extend((0..100_000).map(|_| rng.log_uniform(-60.0, 60.0, true)));
    for x in xs {
        for (name, h, s) in cases {
            assert!(
                same_special(h(x), s(x)),
                "{name}({x:e}) = {:e}, want {:e}",
                h(x),
                s(x)
            );
        }
        let y = x as f32;
        for (name, h, s) in cases32 {
            assert!(same_special(h(y) as f64, s(y) as f64), "{name}({y:e}) f32");
        }
    }
}

/// `powi` is `powf` with an integer exponent (same bits), and exact for small cases.
#[test]
fn powi_matches_powf() {
    let mut rng = Rng(11);
    for _ in 0..20_000 {
        let x = rng.log_uniform(-8.0, 8.0, true);
        let n = (rng.next() % 41) as i32 - 20;
        let a = <f64 as Lane>::powi(x, n);
        let b = <f64 as Lane>::powf(x, n as f64);
        assert_eq!(a.to_bits(), b.to_bits(), "powi({x:e}, {n})");
    }
    approx::assert_ulps_eq!(<f64 as Lane>::powi(3.0, 5), 243.0, max_ulps = 0);
    approx::assert_ulps_eq!(<f64 as Lane>::powi(-2.0, -3), -0.125, max_ulps = 0);
    approx::assert_ulps_eq!(<f32 as Lane>::powi(-2.0, 7), -128.0, max_ulps = 0);
}
