//! Writing a [`Trajectory`] as a `.npz` archive numpy loads (`numpy.load(path)`): each
//! array a `.npy` entry written by the `npyz` crate into a zip archive of the `zip` crate
//! (stored, without compression features: no C libraries). Feature `npy`, off by default.

use crate::trajectory::Trajectory;
use hawk::Real;
use npyz::WriterBuilder;
use npyz::npz::file_name_from_array_name;
use std::io;
use std::path::Path;

/// How each array is stored: uncompressed (saved points are floating-point state, which
/// compresses poorly, and a 150 MB trajectory would take seconds to deflate).
/// Arrays of 4 GB and more need zip64.
fn stored(bytes: u64) -> zip::write::FileOptions {
    zip::write::FileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(bytes >= u64::from(u32::MAX) - 1024)
}

/// Starts entry `name` of the archive; the returned builder writes one `.npy` into it.
fn array<'z, T: npyz::Serialize, W: io::Write + io::Seek>(
    zip: &'z mut zip::ZipWriter<W>,
    name: &str,
    options: zip::write::FileOptions,
) -> io::Result<npyz::write_options::WithWriter<&'z mut zip::ZipWriter<W>, npyz::WriteOptions<T>>> {
    zip.start_file(file_name_from_array_name(name), options)?;
    Ok(npyz::WriteOptions::new().writer(zip))
}

impl<R: Real + npyz::AutoSerialize> Trajectory<R> {
    /// Writes the trajectory to `path` as a `.npz` archive: one array per saved plane, of
    /// shape `(points, samples)` (`x[j, i]` is sample `i` at point `j`, the buffer's own
    /// layout, so nothing is copied), `status` (`(points, samples)`, `uint8`: 0 not reached,
    /// 1 running, 2 finished, 3 failed), `steps` (`uint64`, saving every m steps) or `times`
    /// (`float64`, saving at times), and each of `inputs` (e.g. the sample parameters, one
    /// value per sample) under its name.
    ///
    /// # Errors
    /// An I/O error, or an input whose length is not the number of samples or whose name is
    /// taken (`InvalidInput`).
    pub fn write_npz(&self, path: impl AsRef<Path>, inputs: &[(&str, &[R])]) -> io::Result<()> {
        let (p, n) = (self.points() as u64, self.samples() as u64);
        let taken = |name: &str| {
            self.plane_names().iter().any(|p| p == name)
                || ["status", "steps", "times"].contains(&name)
        };
        for (name, data) in inputs {
            if data.len() as u64 != n || taken(name) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "input `{name}`: {} values for {n} samples, or its name is taken",
                        data.len()
                    ),
                ));
            }
        }
        let mut zip = zip::ZipWriter::new(io::BufWriter::new(std::fs::File::create(path)?));
        for name in self.plane_names() {
            let plane = self.plane(name).expect("a saved plane");
            let mut w = array::<R, _>(&mut zip, name, stored(p * n * R::BYTES as u64))?
                .default_dtype()
                .shape(&[p, n])
                .begin_nd()?;
            w.extend(plane.iter().copied())?;
            w.finish()?;
        }
        let mut w = array::<u8, _>(&mut zip, "status", stored(p * n))?
            .default_dtype()
            .shape(&[p, n])
            .begin_nd()?;
        w.extend(self.status_bytes().iter().copied())?;
        w.finish()?;
        if let Some(steps) = self.steps() {
            let mut w = array::<u64, _>(&mut zip, "steps", stored(p * 8))?
                .default_dtype()
                .shape(&[p])
                .begin_nd()?;
            w.extend(steps.iter().copied())?;
            w.finish()?;
        }
        if let Some(times) = self.times() {
            let mut w = array::<f64, _>(&mut zip, "times", stored(p * 8))?
                .default_dtype()
                .shape(&[p])
                .begin_nd()?;
            w.extend(times.iter().copied())?;
            w.finish()?;
        }
        for (name, data) in inputs {
            let mut w = array::<R, _>(&mut zip, name, stored(n * R::BYTES as u64))?
                .default_dtype()
                .shape(&[n])
                .begin_nd()?;
            w.extend(data.iter().copied())?;
            w.finish()?;
        }
        zip.finish()?;
        Ok(())
    }
}
