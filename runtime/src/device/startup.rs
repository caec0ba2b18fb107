//! Start-up of a device team: how the kernels' module is obtained and what it cost.
//!
//! [`obtain`] is written once for every device (CUDA and the emulated device): the built-in
//! cubin when the device's compute capability equals the cubin's architecture, else the
//! build cache (a warm start), else a JIT from PTX whose image is stored for next time (a
//! cold start). Cache trouble never fails a start-up: it adds a note and JIT-compiles; so
//! does a cache directory or entry that another user owns or may write (see `cache`).

use super::cache::{self, BuildCache, Cache, DeviceIdentity};
use crate::error::Error;
use std::time::Instant;

/// A device module as its caller brings it: the PTX, optionally a cubin assembled ahead of
/// time for one architecture, and where to cache what the driver JIT-compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Module<'a> {
    /// The PTX text (every entry the runtime launches).
    pub ptx: &'a str,
    /// The same module assembled by `ptxas` for [`Module::arch`], if there is one.
    pub cubin: Option<&'a [u8]>,
    /// The cubin's architecture, `sm_XY` (compute capability X.Y).
    pub arch: &'a str,
    /// The module's name in messages: the kernel crate it was built from (`hawk` for the
    /// built-in kernels).
    pub name: &'a str,
    /// Where JIT-compiled images are cached.
    pub cache: BuildCache<'a>,
}

impl<'a> Module<'a> {
    /// A PTX-only module for `arch`, cached as the environment says.
    pub fn ptx(ptx: &'a str, arch: &'a str) -> Self {
        Module {
            ptx,
            cubin: None,
            arch,
            name: "ptx",
            cache: BuildCache::FromEnv,
        }
    }

    /// The same module under another name (for messages).
    pub fn named(self, name: &'a str) -> Self {
        Module { name, ..self }
    }

    /// The names of the GPU entry points the PTX declares (`.entry NAME(`), in order.
    pub fn entries(&self) -> impl Iterator<Item = &'a str> {
        self.ptx
            .lines()
            .filter_map(|l| l.trim_start().split(".entry ").nth(1))
            .filter_map(|rest| rest.split(['(', ' ']).next())
            .filter(|e| !e.is_empty())
    }

    /// The identity the module stores for kernel `name` (`hawk_id_<name>`, see
    /// `hawk::Kernel::IDENTITY`); `None` when it stores none (a module built before
    /// identities, or not by `#[kernel]`).
    pub fn kernel_identity(&self, name: &str) -> Option<u64> {
        // rustc writes the `u64` static as bytes, little-endian, trailing zeros left out:
        // `.visible .global .align 8 .b8 hawk_id_<name>[8] = {173, 239, 21};`
        // (`.u64 hawk_id_<name> = <decimal>;` is read too).
        let symbol = format!(" hawk_id_{name}");
        let line = self.ptx.lines().find(|l| {
            l.split_once(&symbol)
                .is_some_and(|(_, rest)| rest.starts_with(['[', ' ']))
        })?;
        let value = line.split_once('=')?.1.trim().trim_end_matches(';').trim();
        match value.strip_prefix('{') {
            Some(bytes) => {
                let bytes: Vec<u8> = bytes
                    .trim_end_matches('}')
                    .split(',')
                    .map(|b| b.trim().parse().ok())
                    .collect::<Option<_>>()?;
                let mut le = [0u8; 8];
                le.get_mut(..bytes.len())?.copy_from_slice(&bytes);
                Some(u64::from_le_bytes(le))
            }
            None => value.parse().ok(),
        }
    }

    /// The parameter sizes in bytes of entry `symbol`, in order, as the PTX declares them
    /// (`.param .u32` is 4, `.param .u64 .ptr` 8, an array parameter
    /// `.param .align 8 .b8 name[320]` its total); `None` when the module lacks the entry.
    pub fn entry_params(&self, symbol: &str) -> Option<Vec<u16>> {
        let head = format!(".entry {symbol}(");
        let at = self.ptx.find(&head)? + head.len();
        let list = &self.ptx[at..];
        let list = &list[..list.find(')').unwrap_or(list.len())];
        Some(list.split(',').filter_map(param_bytes).collect())
    }
}

/// The size in bytes of one PTX parameter declaration (`.param .u64 .ptr .align 1 x`,
/// `.param .align 8 .b8 x[320]`); `None` for text that declares none.
fn param_bytes(decl: &str) -> Option<u16> {
    let mut tokens = decl
        .split_whitespace()
        .skip_while(|t| *t != ".param")
        .skip(1);
    let mut ty = tokens.next()?;
    if ty == ".align" {
        tokens.next()?;
        ty = tokens.next()?;
    }
    let bits: String = ty.chars().filter(char::is_ascii_digit).collect();
    let elem = bits.parse::<u16>().unwrap_or(0) / 8;
    let name = tokens.filter(|t| !t.starts_with('.')).last().unwrap_or("");
    let count = name
        .split_once('[')
        .and_then(|(_, n)| n.trim_end_matches(']').parse::<u16>().ok())
        .unwrap_or(1);
    Some(elem * count)
}

/// How a team's module was obtained.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ModuleSource {
    /// The host team: no module.
    #[default]
    Host,
    /// The built-in cubin (its architecture matched the device).
    BuiltInCubin,
    /// A cached image of an earlier JIT (a warm start).
    CacheHit,
    /// The PTX, JIT-compiled now (a cold start).
    Jit,
}

impl ModuleSource {
    /// As `RunReport::startup` and the profile page print it.
    pub fn name(self) -> &'static str {
        match self {
            ModuleSource::Host => "host",
            ModuleSource::BuiltInCubin => "cubin (built in)",
            ModuleSource::CacheHit => "cache hit (warm)",
            ModuleSource::Jit => "jit (cold)",
        }
    }
}

/// How a team started: where its module came from, the seconds it took, and notes (cache
/// trouble, a refused cubin).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Startup {
    /// Where the module came from.
    pub source: ModuleSource,
    /// Seconds spent obtaining and loading the module.
    pub load_s: f64,
    /// What went differently than it could have (reported with the first run).
    pub notes: Vec<String>,
}

impl Startup {
    /// A start-up with nothing to load (the host team).
    pub fn none(source: ModuleSource) -> Self {
        Startup {
            source,
            ..Startup::default()
        }
    }
}

/// Whether a cubin for `arch` (`sm_XY`, `sm_XYa`, `sm_XYf`) runs on compute capability
/// `cc`: cubins are exact-architecture, so major and minor must both match.
pub(crate) fn arch_matches(arch: &str, cc: (i32, i32)) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else {
        return false;
    };
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return false;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    major.parse() == Ok(cc.0) && minor.parse() == Ok(cc.1)
}

/// What [`obtain`] needs from a device: load an image, JIT-compile PTX.
pub(crate) trait ModuleLoader {
    /// A loaded module.
    type Handle;
    /// The device's identity (cache key, cubin choice).
    fn identity(&self) -> &DeviceIdentity;
    /// Loads a compiled image; `Err(why)` when the device refuses it.
    fn load_image(&mut self, image: &[u8]) -> Result<Self::Handle, String>;
    /// JIT-compiles `ptx`: the compiled image (for the cache) and the loaded module.
    fn jit(&mut self, ptx: &str) -> Result<(Vec<u8>, Self::Handle), Error>;
}

/// Obtains `module` on the loader's device: built-in cubin, cache hit, or JIT (stored in
/// the cache). Only a failed JIT is an error. `EAGLE_CUBIN=off` ignores the built-in cubin
/// (to exercise the JIT and the cache on a GPU the cubin was built for).
pub(crate) fn obtain<L: ModuleLoader>(
    loader: &mut L,
    module: &Module<'_>,
) -> Result<(L::Handle, Startup), Error> {
    let cubin_off = std::env::var("EAGLE_CUBIN").is_ok_and(|v| v.eq_ignore_ascii_case("off"));
    let module = Module {
        cubin: module.cubin.filter(|_| !cubin_off),
        ..*module
    };
    obtain_in(
        loader,
        &module,
        cache::resolve_dir(module.cache).map(Cache::at),
    )
}

/// [`obtain`] with the cache given (`None`: no cache).
pub(crate) fn obtain_in<L: ModuleLoader>(
    loader: &mut L,
    module: &Module<'_>,
    cache: Option<Cache>,
) -> Result<(L::Handle, Startup), Error> {
    let _r = crate::trace::range("module load");
    let t = Instant::now();
    let mut notes = Vec::new();
    let startup = |source, notes| Startup {
        source,
        load_s: t.elapsed().as_secs_f64(),
        notes,
    };
    if let Some(cubin) = module.cubin
        && arch_matches(module.arch, loader.identity().compute_capability)
    {
        match loader.load_image(cubin) {
            Ok(h) => return Ok((h, startup(ModuleSource::BuiltInCubin, notes))),
            Err(e) => notes.push(format!(
                "the built-in {} cubin did not load ({e}); using the PTX",
                module.arch
            )),
        }
    }
    // A directory another user owns or may write is not used at all (one note, a JIT).
    let cache = cache.filter(|c| match c.refused() {
        Some(why) => {
            notes.push(format!(
                "build cache: {why}: not used, JIT-compiled instead (use a directory of \
                 your own that group and others cannot write: `chmod go-w`, or set \
                 EAGLE_CACHE_DIR)"
            ));
            false
        }
        None => true,
    });
    // The key hashes the whole PTX: only worth it with a cache to look in.
    let cache = cache.map(|c| (cache::key(module.ptx, loader.identity()), c));
    if let Some((key, c)) = &cache {
        match c.load(key) {
            Ok(Some(image)) => match loader.load_image(&image) {
                Ok(h) => return Ok((h, startup(ModuleSource::CacheHit, notes))),
                Err(e) => {
                    notes.push(format!(
                        "build cache: {} did not load ({e}); rebuilt",
                        c.path(key).display()
                    ));
                    if let Err(e) = c.remove(key) {
                        notes.push(format!("build cache: {e}"));
                    }
                }
            },
            Ok(None) => {}
            Err(e) => notes.push(format!("build cache: {e}; rebuilt")),
        }
    }
    let (image, h) = loader.jit(module.ptx)?;
    if let Some((key, c)) = &cache
        && let Err(e) = c.store(key, &image)
    {
        notes.push(format!("build cache: {e}"));
    }
    Ok((h, startup(ModuleSource::Jit, notes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Identities as rustc writes them (bytes, trailing zeros left out) and as decimals;
    /// a name that only starts like another's is not it.
    #[test]
    fn kernel_identity_reads_the_module() {
        let ptx = ".visible .global .align 8 .b8 hawk_id_decay_f32[8] = {1, 2};\n\
                   .visible .global .align 8 .b8 hawk_id_decay[8] = {143, 221, 246, 130, 44, 114, 21};\n\
                   .visible .global .align 8 .u64 hawk_id_lorenz = 18446744073709551615;\n";
        let m = Module::ptx(ptx, "sm_90");
        assert_eq!(m.kernel_identity("decay"), Some(0x0015_722c_82f6_dd8f));
        assert_eq!(m.kernel_identity("decay_f32"), Some(0x0201));
        assert_eq!(m.kernel_identity("lorenz"), Some(u64::MAX));
        assert_eq!(m.kernel_identity("deca"), None);
        assert_eq!(m.kernel_identity("lorenz_rk4"), None);
    }

    /// A device whose "images" are `IMG:` + the PTX; counts what it was asked to do.
    struct Mock {
        id: DeviceIdentity,
        loads: u32,
        jits: u32,
        refuse: Option<Vec<u8>>,
    }

    impl Mock {
        fn new(cc: (i32, i32)) -> Self {
            Mock {
                id: DeviceIdentity {
                    name: "mock".into(),
                    compute_capability: cc,
                    driver_version: 12080,
                },
                loads: 0,
                jits: 0,
                refuse: None,
            }
        }
    }

    impl ModuleLoader for Mock {
        type Handle = Vec<u8>;
        fn identity(&self) -> &DeviceIdentity {
            &self.id
        }
        fn load_image(&mut self, image: &[u8]) -> Result<Vec<u8>, String> {
            self.loads += 1;
            if self.refuse.as_deref() == Some(image) || !image.starts_with(b"IMG:") {
                return Err("CUDA_ERROR_INVALID_IMAGE".into());
            }
            Ok(image.to_vec())
        }
        fn jit(&mut self, ptx: &str) -> Result<(Vec<u8>, Vec<u8>), Error> {
            self.jits += 1;
            let img = [b"IMG:".as_slice(), ptx.as_bytes()].concat();
            Ok((img.clone(), img))
        }
    }

    const CUBIN: &[u8] = b"IMG:cubin";

    fn module(cubin: Option<&'static [u8]>) -> Module<'static> {
        Module {
            cubin,
            ..Module::ptx("ptx text", "sm_90")
        }
    }

    #[test]
    fn arch_strings() {
        assert!(arch_matches("sm_90", (9, 0)));
        assert!(arch_matches("sm_90a", (9, 0)));
        assert!(arch_matches("sm_80", (8, 0)));
        assert!(arch_matches("sm_86", (8, 6)));
        assert!(arch_matches("sm_100", (10, 0)));
        assert!(arch_matches("sm_120f", (12, 0)));
        assert!(!arch_matches("sm_90", (8, 0)));
        assert!(!arch_matches("sm_90", (9, 1)));
        assert!(!arch_matches("sm_86", (8, 0)));
        assert!(!arch_matches("sm_100", (1, 0)));
        for bad in ["", "sm_", "sm_9", "compute_90", "sm_x0", "90"] {
            assert!(!arch_matches(bad, (9, 0)), "{bad}");
        }
    }

    #[test]
    fn built_in_cubin_when_the_arch_matches() {
        let dir = tempfile::tempdir().unwrap();
        let mut dev = Mock::new((9, 0));
        let (h, s) =
            obtain_in(&mut dev, &module(Some(CUBIN)), Some(Cache::at(dir.path()))).unwrap();
        assert_eq!(h, CUBIN);
        assert_eq!(s.source, ModuleSource::BuiltInCubin);
        assert_eq!((dev.loads, dev.jits), (1, 0));
        assert!(s.notes.is_empty());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no cache write"
        );
    }

    #[test]
    fn arch_mismatch_is_cold_then_warm() {
        let dir = tempfile::tempdir().unwrap();
        let m = module(Some(CUBIN));
        let mut dev = Mock::new((8, 0));
        let (h, s) = obtain_in(&mut dev, &m, Some(Cache::at(dir.path()))).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(h, b"IMG:ptx text");
        assert_eq!((dev.loads, dev.jits), (0, 1));
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        let mut dev = Mock::new((8, 0));
        let (h, s) = obtain_in(&mut dev, &m, Some(Cache::at(dir.path()))).unwrap();
        assert_eq!(s.source, ModuleSource::CacheHit);
        assert_eq!(h, b"IMG:ptx text");
        assert_eq!((dev.loads, dev.jits), (1, 0));
        // Another device (different capability) has its own entry: cold again.
        let mut other = Mock::new((8, 6));
        let (_, s) = obtain_in(&mut other, &m, Some(Cache::at(dir.path()))).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_refused_cache_entry_is_deleted_and_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        let m = module(None);
        let mut dev = Mock::new((9, 0));
        let key = cache::key(m.ptx, &dev.id);
        // Well-framed, but the device refuses it (as cuModuleLoadData on a stale image).
        c.store(&key, b"IMG:stale").unwrap();
        dev.refuse = Some(b"IMG:stale".to_vec());
        let (h, s) = obtain_in(&mut dev, &m, Some(c.clone())).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(h, b"IMG:ptx text");
        assert_eq!((dev.loads, dev.jits), (1, 1));
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].contains("did not load"), "{:?}", s.notes);
        assert_eq!(
            c.load(&key),
            Ok(Some(b"IMG:ptx text".to_vec())),
            "rewritten"
        );
    }

    #[test]
    fn a_corrupt_entry_is_ignored_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        let m = module(None);
        let mut dev = Mock::new((9, 0));
        let key = cache::key(m.ptx, &dev.id);
        std::fs::write(c.path(&key), b"garbage").unwrap();
        let (_, s) = obtain_in(&mut dev, &m, Some(c.clone())).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(dev.loads, 0, "a corrupt entry never reaches the device");
        assert!(s.notes[0].starts_with("build cache:"), "{:?}", s.notes);
        assert_eq!(c.load(&key), Ok(Some(b"IMG:ptx text".to_vec())));
    }

    #[test]
    fn a_cache_others_may_write_is_not_used_one_note_and_a_jit() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path().join("shared"));
        let m = module(None);
        let mut dev = Mock::new((9, 0));
        let key = cache::key(m.ptx, &dev.id);
        // A valid entry, as if planted: it must not be loaded from a world-writable directory.
        c.store(&key, b"IMG:planted").unwrap();
        let shared = std::fs::Permissions::from_mode(0o777);
        std::fs::set_permissions(dir.path().join("shared"), shared).unwrap();
        let (h, s) = obtain_in(&mut dev, &m, Some(c.clone())).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(h, b"IMG:ptx text");
        assert_eq!((dev.loads, dev.jits), (0, 1), "nothing loaded from it");
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        let note = &s.notes[0];
        assert!(note.starts_with("build cache:"), "{note}");
        assert!(
            note.contains("writable by group or others (mode 0777)"),
            "{note}"
        );
        assert!(note.contains("not used"), "{note}");
        // Nor written to: the planted entry is still there, unchanged.
        let entries = std::fs::read_dir(dir.path().join("shared"))
            .unwrap()
            .count();
        assert_eq!(entries, 1);
        let mode = std::fs::Permissions::from_mode(0o700);
        std::fs::set_permissions(dir.path().join("shared"), mode).unwrap();
        assert_eq!(c.load(&key), Ok(Some(b"IMG:planted".to_vec())));
    }

    #[test]
    fn a_refused_built_in_cubin_falls_back_to_the_ptx() {
        let mut dev = Mock::new((9, 0));
        dev.refuse = Some(CUBIN.to_vec());
        let (h, s) = obtain_in(&mut dev, &module(Some(CUBIN)), None).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(h, b"IMG:ptx text");
        assert!(s.notes[0].contains("built-in sm_90 cubin"), "{:?}", s.notes);
    }

    #[test]
    fn no_cache_or_an_unwritable_one_still_starts() {
        let mut dev = Mock::new((9, 0));
        for _ in 0..2 {
            let (_, s) = obtain_in(&mut dev, &module(None), None).unwrap();
            assert_eq!(s.source, ModuleSource::Jit);
            assert!(s.notes.is_empty());
        }
        assert_eq!(dev.jits, 2, "no cache: every start is cold");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let (h, s) = obtain_in(&mut dev, &module(None), Some(Cache::at(file.join("c")))).unwrap();
        assert_eq!(h, b"IMG:ptx text");
        assert_eq!(s.source, ModuleSource::Jit);
        assert_eq!(s.notes.len(), 2, "read and write both noted: {:?}", s.notes);
        // BuildCache::Off resolves to no directory.
        let m = Module {
            cache: BuildCache::Off,
            ..module(None)
        };
        let (_, s) = obtain(&mut dev, &m).unwrap();
        assert_eq!(s.source, ModuleSource::Jit);
    }
}
