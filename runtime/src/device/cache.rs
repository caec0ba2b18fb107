//! The on-disk build cache: device modules compiled from PTX, one file per key, so the
//! second start-up on the same GPU skips the JIT. GPU-independent (tested without one).
//!
//! - Directory: [`BuildCache::At`], else `$EAGLE_CACHE_DIR`, else `$XDG_CACHE_HOME/eagle`,
//!   else `$HOME/.cache/eagle`; `EAGLE_CACHE=off` (or [`BuildCache::Off`]) disables it. The
//!   environment is read in one place, [`resolve_dir`].
//! - Key: SHA-256 of (format version, PTX text, compute capability, device name, driver
//!   version), so a change in any of them is a different entry.
//! - Entry: `<dir>/<key>.cubin` holds the image followed by a trailer (its length, its
//!   SHA-256 and a magic), so a truncated or corrupted file is detected before anything
//!   hands it to the driver (`cuModuleLoadData` takes no length).
//! - Writes go to a temp file in the same directory, then `rename` (atomic on POSIX):
//!   readers see the old entry or the new one, never half of one.
//! - Trust: the cache holds code the GPU runs, and its key is computable (PTX, GPU, driver),
//!   so no other user may be able to plant an entry. A directory this process creates is
//!   0700 and every entry 0600; a directory or an entry that is not owned by the effective
//!   user, or that group or others may write, is refused ([`Cache::refused`], [`Cache::load`],
//!   [`Cache::store`]): the caller notes it and JIT-compiles, as ssh refuses keys in such
//!   places. The SHA-256 trailer only proves an entry is whole, not whose it is. The rule
//!   and the private directories and files are hawk-host's `private_fs`, shared with the
//!   host team's tuning entries in the same cache directory.

use hawk_host::private_fs::{self, FsError};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a device team caches the modules it JIT-compiles from PTX.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildCache<'a> {
    /// From the environment: `EAGLE_CACHE=off` disables it; else `$EAGLE_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/eagle`, else `$HOME/.cache/eagle`.
    #[default]
    FromEnv,
    /// No cache: every start-up without a usable built-in cubin JIT-compiles the PTX.
    Off,
    /// This directory (the environment is not read).
    At(&'a Path),
}

/// What identifies a device for the cache key (and for picking a built-in cubin).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeviceIdentity {
    /// The device's name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability `(major, minor)`, e.g. `(9, 0)`.
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version (`12080` for 12.8).
    pub driver_version: i32,
}

/// Bumped when the key's inputs or the entry format change.
const FORMAT: &[u8] = b"eagle-build-cache-v1";
/// The last bytes of every entry.
const MAGIC: &[u8; 8] = b"EAGLEC01";
/// Trailer: image length (u64 LE), SHA-256 of the image, magic.
const TRAILER: usize = 8 + 32 + MAGIC.len();

/// The cache directory for `setting`, reading the environment through `var` (the process
/// environment in [`resolve_dir`]); `None` when the cache is off or no directory is known.
pub(crate) fn resolve_dir_with(
    setting: BuildCache<'_>,
    var: impl Fn(&str) -> Option<String>,
) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.is_empty());
    match setting {
        BuildCache::Off => None,
        BuildCache::At(dir) => Some(dir.to_path_buf()),
        BuildCache::FromEnv => {
            if set("EAGLE_CACHE").is_some_and(|v| {
                matches!(
                    v.to_ascii_lowercase().as_str(),
                    "off" | "0" | "false" | "no"
                )
            }) {
                return None;
            }
            set("EAGLE_CACHE_DIR")
                .map(PathBuf::from)
                .or_else(|| set("XDG_CACHE_HOME").map(|d| Path::new(&d).join("eagle")))
                .or_else(|| set("HOME").map(|h| Path::new(&h).join(".cache/eagle")))
        }
    }
}

/// The cache directory for `setting` from the process environment.
pub(crate) fn resolve_dir(setting: BuildCache<'_>) -> Option<PathBuf> {
    resolve_dir_with(setting, |k| std::env::var(k).ok())
}

/// The cache key of `ptx` built for `device`: 64 hex digits.
pub(crate) fn key(ptx: &str, device: &DeviceIdentity) -> String {
    let mut h = Sha256::new();
    // Length-prefixed fields, so no two different inputs hash the same byte stream.
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(FORMAT);
    field(ptx.as_bytes());
    field(&device.compute_capability.0.to_le_bytes());
    field(&device.compute_capability.1.to_le_bytes());
    field(device.name.as_bytes());
    field(&device.driver_version.to_le_bytes());
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A cache directory (it need not exist yet: `store` creates it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Cache { dir: dir.into() }
    }

    /// The entry file of `key`.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// Why the directory must not be used: it (or the symbolic link naming it) is owned by
    /// another user, or group or others may write it. `None` when it can be trusted, and
    /// when it does not exist (yet) or cannot be inspected: [`Cache::store`] creates it, and
    /// [`Cache::load`] and [`Cache::store`] report what they cannot do.
    pub fn refused(&self) -> Option<String> {
        private_fs::refused_dir(&self.dir)
    }

    /// The image stored under `key`: `Ok(None)` when there is none, `Err(why)` when the
    /// directory or the entry is not to be trusted ([`Cache::refused`]; the entry's owner
    /// and mode are checked on the opened file), or the entry cannot be read or is
    /// truncated or corrupted (it should be rebuilt).
    pub fn load(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        if let Some(why) = self.refused() {
            return Err(format!("{why}: refused"));
        }
        let path = self.path(key);
        let mut data = match private_fs::read_private(&path) {
            Ok(Some(data)) => data,
            Ok(None) => return Ok(None),
            Err(FsError::Untrusted(why)) => return Err(format!("{why}: refused")),
            Err(FsError::Io(e)) => return Err(e),
        };
        let bad = |what: &str| Err(format!("{} is {what}", path.display()));
        if data.len() < TRAILER || &data[data.len() - MAGIC.len()..] != MAGIC {
            return bad("not a complete cache entry");
        }
        let body = data.len() - TRAILER;
        let len = u64::from_le_bytes(data[body..body + 8].try_into().expect("8 bytes"));
        if len != body as u64 {
            return bad("truncated");
        }
        if Sha256::digest(&data[..body]).as_slice() != &data[body + 8..body + 40] {
            return bad("corrupted (checksum mismatch)");
        }
        data.truncate(body);
        Ok(Some(data))
    }

    /// Stores `image` under `key`, atomically (temp file + rename), as an entry of mode
    /// 0600 in a directory created with mode 0700; `Err(why)` when the directory or the file
    /// cannot be written, or the directory is not to be trusted ([`Cache::refused`]).
    pub fn store(&self, key: &str, image: &[u8]) -> Result<(), String> {
        private_fs::private_dir(&self.dir)
            .and_then(|()| {
                private_fs::write_private(&self.path(key), |f| {
                    f.write_all(image)?;
                    f.write_all(&(image.len() as u64).to_le_bytes())?;
                    f.write_all(&Sha256::digest(image))?;
                    f.write_all(MAGIC)
                })
            })
            .map_err(|e| match e {
                FsError::Untrusted(why) => format!("{why}: not written"),
                FsError::Io(e) => e,
            })
    }

    /// Deletes the entry of `key` (a missing entry is not an error).
    pub fn remove(&self, key: &str) -> Result<(), String> {
        match std::fs::remove_file(self.path(key)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(format!("cannot remove {}: {e}", self.path(key).display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hawk_host::private_fs::{distrust, euid};
    use std::collections::HashMap;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    fn h200() -> DeviceIdentity {
        DeviceIdentity {
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            driver_version: 12080,
        }
    }

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn key_changes_with_every_input() {
        let base = key(".version 8.0\n", &h200());
        assert_eq!(base.len(), 64);
        assert!(base.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(base, key(".version 8.0\n", &h200()), "deterministic");
        let mut keys = vec![base.clone(), key(".version 8.1\n", &h200())];
        let mut d = h200();
        d.compute_capability = (9, 1);
        keys.push(key(".version 8.0\n", &d));
        let mut d = h200();
        d.compute_capability = (8, 0);
        keys.push(key(".version 8.0\n", &d));
        let mut d = h200();
        d.name = "NVIDIA H100".into();
        keys.push(key(".version 8.0\n", &d));
        let mut d = h200();
        d.driver_version = 12090;
        keys.push(key(".version 8.0\n", &d));
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "every input must change the key");
    }

    #[test]
    fn store_then_load_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path().join("nested/eagle"));
        let k = key("ptx", &h200());
        assert_eq!(c.load(&k), Ok(None), "nothing stored yet");
        let image: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        c.store(&k, &image).unwrap();
        assert_eq!(c.load(&k), Ok(Some(image.clone())));
        // Overwriting replaces the entry; no temp files are left behind.
        c.store(&k, b"second").unwrap();
        assert_eq!(c.load(&k), Ok(Some(b"second".to_vec())));
        let files: Vec<_> = std::fs::read_dir(dir.path().join("nested/eagle"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(files, vec![format!("{k}.cubin")]);
        // An empty image is a valid entry too.
        c.store("empty", b"").unwrap();
        assert_eq!(c.load("empty"), Ok(Some(Vec::new())));
        c.remove(&k).unwrap();
        assert_eq!(c.load(&k), Ok(None));
        c.remove(&k).unwrap();
    }

    #[test]
    fn truncated_and_corrupted_entries_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        let image = vec![0x5au8; 300];
        c.store("k", &image).unwrap();
        let full = std::fs::read(c.path("k")).unwrap();
        assert_eq!(full.len(), image.len() + TRAILER);
        // Truncated anywhere: in the image, in the trailer, to nothing.
        for cut in [0, 1, 100, image.len(), full.len() - 1] {
            std::fs::write(c.path("k"), &full[..cut]).unwrap();
            let e = c.load("k").unwrap_err();
            assert!(
                e.contains("cache entry") || e.contains("truncated"),
                "{cut}: {e}"
            );
        }
        // One bit flipped in the image.
        let mut flipped = full.clone();
        flipped[10] ^= 1;
        std::fs::write(c.path("k"), &flipped).unwrap();
        assert!(c.load("k").unwrap_err().contains("checksum"));
        // Bytes prepended: the length no longer matches.
        let mut longer = vec![0u8; 4];
        longer.extend_from_slice(&full);
        std::fs::write(c.path("k"), &longer).unwrap();
        assert!(c.load("k").unwrap_err().contains("truncated"));
        // A plain cubin (no trailer) is not an entry.
        std::fs::write(c.path("k"), b"\x7fELF plain cubin without a trailer").unwrap();
        assert!(c.load("k").is_err());
        // Rewriting fixes it.
        c.store("k", &image).unwrap();
        assert_eq!(c.load("k"), Ok(Some(image)));
    }

    #[test]
    fn an_unwritable_dir_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        // A regular file where the directory should be: create_dir_all fails.
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let c = Cache::at(file.join("eagle"));
        let e = c.store("k", b"image").unwrap_err();
        assert!(e.contains("cannot create"), "{e}");
        assert!(
            c.load("k").is_err(),
            "reading under a file fails, but softly"
        );
        // A directory entry where the entry file should be: the rename fails.
        let c = Cache::at(dir.path());
        std::fs::create_dir(c.path("k")).unwrap();
        let e = c.store("k", b"image").unwrap_err();
        assert!(e.contains("cannot write"), "{e}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temp file left behind: {left:?}");
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().mode() & 0o7777
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_fresh_directory_is_0700_and_its_entries_0600() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path().join("made/here"));
        c.store("k", b"image").unwrap();
        for d in ["made", "made/here"] {
            assert_eq!(mode(&dir.path().join(d)), 0o700, "{d}");
        }
        assert_eq!(mode(&c.path("k")), 0o600);
        // A rewrite is a new file: 0600 again, even where the old entry was not.
        chmod(&c.path("k"), 0o644);
        c.store("k", b"again").unwrap();
        assert_eq!(mode(&c.path("k")), 0o600);
        assert_eq!(c.refused(), None);
        assert_eq!(c.load("k"), Ok(Some(b"again".to_vec())));
    }

    #[test]
    fn a_directory_group_or_others_may_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path().join("eagle"));
        c.store("k", b"image").unwrap();
        for m in [0o777, 0o770, 0o730, 0o703, 0o1777] {
            chmod(&dir.path().join("eagle"), m);
            let why = c.refused().unwrap_or_else(|| panic!("{m:o} trusted"));
            assert!(why.contains("writable by group or others"), "{why}");
            assert!(why.contains(&format!("mode {m:04o}")), "{why}");
            // Neither read (the entry is intact) nor written.
            let e = c.load("k").unwrap_err();
            assert!(e.contains("writable by group or others"), "{e}");
            let e = c.store("other", b"planted?").unwrap_err();
            assert!(e.contains("not written"), "{e}");
            assert!(!c.path("other").exists());
        }
        // Read-only for group and others is fine (a cache made with the default umask).
        for m in [0o700, 0o750, 0o755] {
            chmod(&dir.path().join("eagle"), m);
            assert_eq!(c.refused(), None, "{m:o}");
            assert_eq!(c.load("k"), Ok(Some(b"image".to_vec())), "{m:o}");
        }
    }

    #[test]
    fn an_entry_group_or_others_may_write_is_refused_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path());
        for m in [0o666, 0o620, 0o602, 0o622] {
            c.store("k", b"image").unwrap();
            chmod(&c.path("k"), m);
            let e = c.load("k").unwrap_err();
            assert!(e.contains("writable by group or others"), "{m:o}: {e}");
            assert!(e.contains(&format!("mode {m:04o}")), "{e}");
            // The directory itself is still trusted, so the entry can be replaced.
            assert_eq!(c.refused(), None);
            c.store("k", b"image").unwrap();
            assert_eq!(mode(&c.path("k")), 0o600);
            assert_eq!(c.load("k"), Ok(Some(b"image".to_vec())));
        }
        for m in [0o600, 0o640, 0o644, 0o400] {
            chmod(&c.path("k"), m);
            assert_eq!(c.load("k"), Ok(Some(b"image".to_vec())), "{m:o}");
        }
    }

    #[test]
    fn what_another_user_owns_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::at(dir.path().join("eagle"));
        c.store("k", b"image").unwrap();
        // The rule itself, for any process: checked against a uid that is not the owner.
        let me = euid();
        for p in [dir.path().join("eagle"), c.path("k")] {
            let meta = std::fs::metadata(&p).unwrap();
            assert_eq!(meta.uid(), me, "made by this process");
            assert_eq!(distrust(&p, &meta, me), None);
            let why = distrust(&p, &meta, me + 1).unwrap();
            assert!(
                why.contains(&format!("owned by uid {me}, not by this user")),
                "{why}"
            );
        }
        // Real files of another user: only root can make them (CI runs as root).
        if me != 0 {
            println!(
                "skipped (one case): chown to uid 65534 needs root, this test runs as uid {me}; \
                 the rule was checked above against another uid"
            );
            return;
        }
        let nobody = Some(65534);
        std::os::unix::fs::chown(c.path("k"), nobody, nobody).unwrap();
        let e = c.load("k").unwrap_err();
        assert!(
            e.contains("owned by uid 65534, not by this user (uid 0)"),
            "{e}"
        );
        // The directory is still ours: the entry is replaced by one of our own.
        c.store("k", b"image").unwrap();
        assert_eq!(std::fs::metadata(c.path("k")).unwrap().uid(), 0);
        assert_eq!(c.load("k"), Ok(Some(b"image".to_vec())));
        // A directory of another user: neither read nor written, even at mode 0700.
        std::os::unix::fs::chown(dir.path().join("eagle"), nobody, nobody).unwrap();
        let why = c.refused().unwrap();
        assert!(why.contains("owned by uid 65534"), "{why}");
        assert!(c.load("k").unwrap_err().contains("owned by uid 65534"));
        assert!(c.store("k2", b"x").unwrap_err().contains("not written"));
        // A symbolic link another user owns, to a directory of ours: refused too.
        let ours = dir.path().join("ours");
        let link = dir.path().join("link");
        Cache::at(&ours).store("k", b"image").unwrap();
        std::os::unix::fs::symlink(&ours, &link).unwrap();
        assert_eq!(Cache::at(&link).refused(), None, "our link, our directory");
        std::os::unix::fs::lchown(&link, nobody, nobody).unwrap();
        let why = Cache::at(&link).refused().unwrap();
        assert!(why.contains("symbolic link owned by uid 65534"), "{why}");
    }

    #[test]
    fn dir_resolution_order() {
        let at = Path::new("/explicit");
        let all = env(&[
            ("EAGLE_CACHE_DIR", "/e"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ]);
        assert_eq!(
            resolve_dir_with(BuildCache::FromEnv, &all),
            Some("/e".into())
        );
        assert_eq!(resolve_dir_with(BuildCache::At(at), &all), Some(at.into()));
        assert_eq!(resolve_dir_with(BuildCache::Off, &all), None);
        let xdg = env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]);
        assert_eq!(
            resolve_dir_with(BuildCache::FromEnv, &xdg),
            Some("/x/eagle".into())
        );
        let home = env(&[("EAGLE_CACHE_DIR", ""), ("HOME", "/h")]);
        assert_eq!(
            resolve_dir_with(BuildCache::FromEnv, &home),
            Some("/h/.cache/eagle".into())
        );
        assert_eq!(resolve_dir_with(BuildCache::FromEnv, env(&[])), None);
        for off in ["off", "OFF", "0", "false", "no"] {
            let e = env(&[("EAGLE_CACHE", off), ("EAGLE_CACHE_DIR", "/e")]);
            assert_eq!(resolve_dir_with(BuildCache::FromEnv, &e), None, "{off}");
            // An explicit directory is not overridden by the environment.
            assert_eq!(resolve_dir_with(BuildCache::At(at), &e), Some(at.into()));
        }
        let on = env(&[("EAGLE_CACHE", "on"), ("EAGLE_CACHE_DIR", "/e")]);
        assert_eq!(resolve_dir_with(BuildCache::FromEnv, on), Some("/e".into()));
    }
}
