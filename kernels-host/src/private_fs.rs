//! Private files for eagle's on-disk cache: the device team's cubins, the host team's
//! `lanes: auto` choices and measured peaks. Each of them decides what code runs (or what
//! a report says), and the cache's file names are computable, so no other user may be able
//! to plant or replace an entry.
//!
//! - Every directory made here is 0700 ([`private_dir`]) and every file 0600
//!   ([`write_private`]), written to a new temp file in the same directory and renamed over
//!   the entry (atomic on POSIX: readers see the old entry or the new one).
//! - A directory or a file that is not owned by the effective user, or that group or
//!   others may write, is refused ([`distrust`], [`refused_dir`], [`read_private`]): the
//!   caller notes it and measures or builds again, as ssh refuses keys in such places.
//!
//! Shared by hawk-host and eagle-runtime (which depends on hawk-host), so the rule lives
//! in one place.

use std::fs::{File, Metadata};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The mode of a directory made here: only its owner may enter, read or write it.
pub const DIR_MODE: u32 = 0o700;
/// The mode of a file written here: only its owner may read or write it.
pub const FILE_MODE: u32 = 0o600;
/// Mode bits that let group or others write: a directory or file with any of them is
/// refused.
pub const WRITABLE_BY_OTHERS: u32 = 0o022;

/// Why a private directory or file could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FsError {
    /// It is not to be trusted: owned by another user, or writable by group or others
    /// (the text says which, with its path).
    Untrusted(String),
    /// It could not be created, read or written (the text says what, with its path).
    Io(String),
}

impl std::fmt::Display for FsError {
    /// The text the variant holds.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FsError::Untrusted(s) | FsError::Io(s) => f.write_str(s),
        }
    }
}

/// The effective user id of this process: the owner every directory and file must have.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Why `path` (with metadata `meta`) cannot be trusted: it is owned by another user than
/// `euid`, or group or others may write it. `None`: it can be trusted.
pub fn distrust(path: &Path, meta: &Metadata, euid: u32) -> Option<String> {
    if meta.uid() != euid {
        return Some(format!(
            "{} is owned by uid {}, not by this user (uid {euid})",
            path.display(),
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    (mode & WRITABLE_BY_OTHERS != 0).then(|| {
        format!(
            "{} is writable by group or others (mode {mode:04o})",
            path.display()
        )
    })
}

/// Why directory `dir` must not be used: it (or the symbolic link naming it) is owned by
/// another user, or group or others may write it. `None` when it can be trusted, and when
/// it does not exist (yet) or cannot be inspected (what then fails is reported by the
/// read or write that follows).
pub fn refused_dir(dir: &Path) -> Option<String> {
    let euid = euid();
    let link = std::fs::symlink_metadata(dir).ok()?;
    if link.file_type().is_symlink() && link.uid() != euid {
        return Some(format!(
            "{} is a symbolic link owned by uid {}, not by this user (uid {euid})",
            dir.display(),
            link.uid()
        ));
    }
    let meta = std::fs::metadata(dir).ok()?;
    distrust(dir, &meta, euid)
}

/// Makes `dir` and its missing parents, each with mode 0700 (an existing one is left as
/// it is), then checks `dir` ([`refused_dir`]): `Ok` when it is there and to be trusted.
pub fn private_dir(dir: &Path) -> Result<(), FsError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
        .map_err(|e| FsError::Io(format!("cannot create {}: {e}", dir.display())))?;
    refused_dir(dir).map_or(Ok(()), |why| Err(FsError::Untrusted(why)))
}

/// The contents of file `path`: `Ok(None)` when there is none; [`FsError::Untrusted`] when
/// the opened file is owned by another user or group or others may write it; else
/// [`FsError::Io`] when it cannot be read. Its directory is the caller's to check
/// ([`refused_dir`]).
pub fn read_private(path: &Path) -> Result<Option<Vec<u8>>, FsError> {
    let cannot = |e: std::io::Error| FsError::Io(format!("cannot read {}: {e}", path.display()));
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e)),
    };
    let meta = file.metadata().map_err(cannot)?;
    if let Some(why) = distrust(path, &meta, euid()) {
        return Err(FsError::Untrusted(why));
    }
    let mut data = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut data).map_err(cannot)?;
    Ok(Some(data))
}

/// Writes file `path` as `write` fills it: into a new temp file (never one planted under
/// its name) of mode 0600 whatever the umask, in the same directory, synced, then renamed
/// over `path`. On failure the temp file is removed and `path` is left as it was. The
/// directory must have been made and checked with [`private_dir`].
pub fn write_private(
    path: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<(), FsError> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let cannot = |e: std::io::Error| FsError::Io(format!("cannot write {}: {e}", path.display()));
    let name = path
        .file_name()
        .ok_or_else(|| cannot(std::io::ErrorKind::InvalidInput.into()))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(&tmp)?;
        f.set_permissions(std::fs::Permissions::from_mode(FILE_MODE))?;
        write(&mut f)?;
        f.flush()?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        cannot(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().mode() & 0o7777
    }

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn write(p: &Path, text: &str) -> Result<(), FsError> {
        write_private(p, |f| f.write_all(text.as_bytes()))
    }

    #[test]
    fn made_directories_are_0700_and_written_files_0600() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        private_dir(&deep).unwrap();
        for d in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&dir.path().join(d)), DIR_MODE, "{d}");
        }
        let f = deep.join("entry");
        write(&f, "one").unwrap();
        assert_eq!(mode(&f), FILE_MODE);
        assert_eq!(read_private(&f), Ok(Some(b"one".to_vec())));
        // A rewrite is a new file: 0600 again, even where the old one was not.
        chmod(&f, 0o644);
        write(&f, "two").unwrap();
        assert_eq!(mode(&f), FILE_MODE);
        assert_eq!(read_private(&f), Ok(Some(b"two".to_vec())));
        // Nothing else is left in the directory (no temp files).
        let names: Vec<_> = std::fs::read_dir(&deep)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["entry"]);
        // An existing directory is left as it is (a 0755 one stays usable).
        chmod(&deep, 0o755);
        private_dir(&deep).unwrap();
        assert_eq!(mode(&deep), 0o755);
        assert_eq!(read_private(&deep.join("none")), Ok(None));
    }

    #[test]
    fn a_directory_group_or_others_may_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        private_dir(&d).unwrap();
        assert_eq!(refused_dir(&d), None);
        for m in [0o777, 0o770, 0o730, 0o703, 0o1777, 0o720, 0o702] {
            chmod(&d, m);
            let why = refused_dir(&d).unwrap_or_else(|| panic!("{m:o} trusted"));
            assert!(why.contains("writable by group or others"), "{why}");
            assert!(why.contains(&format!("mode {m:04o}")), "{why}");
            assert!(
                matches!(private_dir(&d), Err(FsError::Untrusted(w)) if w == why),
                "{m:o}"
            );
        }
        for m in [0o700, 0o750, 0o755, 0o500] {
            chmod(&d, m);
            assert_eq!(refused_dir(&d), None, "{m:o}");
        }
        chmod(&d, 0o700);
        // A missing directory is not refused (it is made before anything is written).
        assert_eq!(refused_dir(&dir.path().join("missing")), None);
    }

    #[test]
    fn a_file_group_or_others_may_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        write(&f, "x").unwrap();
        for m in [0o666, 0o620, 0o602, 0o622, 0o660] {
            chmod(&f, m);
            let e = read_private(&f).unwrap_err();
            let FsError::Untrusted(why) = &e else {
                panic!("{m:o}: {e:?}")
            };
            assert!(why.contains("writable by group or others"), "{why}");
            assert!(why.contains(&format!("mode {m:04o}")), "{why}");
        }
        for m in [0o600, 0o640, 0o644, 0o400] {
            chmod(&f, m);
            assert_eq!(read_private(&f), Ok(Some(b"x".to_vec())), "{m:o}");
        }
    }

    #[test]
    fn what_another_user_owns_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        write(&f, "x").unwrap();
        let me = euid();
        // The rule itself, for any process: checked against a uid that is not the owner.
        for p in [dir.path(), f.as_path()] {
            let meta = std::fs::metadata(p).unwrap();
            assert_eq!(meta.uid(), me);
            assert_eq!(distrust(p, &meta, me), None);
            let why = distrust(p, &meta, me + 1).unwrap();
            assert!(
                why.contains(&format!("owned by uid {me}, not by this user")),
                "{why}"
            );
        }
        // Real files of another user: only root can make them.
        if me != 0 {
            println!("skipped (one case): chown needs root, this test runs as uid {me}");
            return;
        }
        let nobody = Some(65534);
        std::os::unix::fs::chown(&f, nobody, nobody).unwrap();
        let e = read_private(&f).unwrap_err();
        assert!(
            matches!(&e, FsError::Untrusted(w) if w.contains("owned by uid 65534")),
            "{e:?}"
        );
        let d = dir.path().join("theirs");
        private_dir(&d).unwrap();
        std::os::unix::fs::chown(&d, nobody, nobody).unwrap();
        assert!(refused_dir(&d).unwrap().contains("owned by uid 65534"));
        assert!(matches!(private_dir(&d), Err(FsError::Untrusted(_))));
        // A symbolic link another user owns, to a directory of ours.
        let ours = dir.path().join("ours");
        let link = dir.path().join("link");
        private_dir(&ours).unwrap();
        std::os::unix::fs::symlink(&ours, &link).unwrap();
        assert_eq!(refused_dir(&link), None, "our link, our directory");
        std::os::unix::fs::lchown(&link, nobody, nobody).unwrap();
        assert!(
            refused_dir(&link)
                .unwrap()
                .contains("symbolic link owned by uid 65534")
        );
    }

    #[test]
    fn failures_are_errors_and_leave_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        write(&file, "x").unwrap();
        let e = private_dir(&file.join("sub")).unwrap_err();
        assert!(
            matches!(&e, FsError::Io(m) if m.contains("cannot create")),
            "{e:?}"
        );
        assert!(matches!(
            read_private(&file.join("sub/f")),
            Err(FsError::Io(_))
        ));
        // A directory where the file should be: the rename fails.
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let e = write(&dir.path().join("d"), "x").unwrap_err();
        assert!(
            matches!(&e, FsError::Io(m) if m.contains("cannot write")),
            "{e:?}"
        );
        let tmp: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(tmp.is_empty(), "{tmp:?}");
    }
}
