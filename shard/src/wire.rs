//! Messages between ranks as bytes: serde's derives on the runtime's report types
//! (eagle-runtime's `serde` feature, on with `mpi`) and [`postcard`]'s compact encoding, so a
//! field added to `RunReport` travels without a change here.

use serde::{Deserialize, Serialize};

/// What the root broadcasts before a run: the kernel it runs, the sample count, and the
/// shared params as raw bits (`f32` in the low 32).
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Header {
    /// `K::NAME` of the root's kernel.
    pub kernel: String,
    /// Samples in the ensemble (0 when the root refused its planes).
    pub n: usize,
    /// The params, each as its bits.
    pub params: Vec<u64>,
}

/// `value` as bytes.
pub(crate) fn to_bytes<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing into a growable Vec fails only on a type serde cannot map, never on data.
    postcard::to_stdvec(value).expect("a report or header always serializes")
}

/// The value [`to_bytes`] gave; `None` on a short or malformed message.
pub(crate) fn from_bytes<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    postcard::from_bytes(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Merged, Part};
    use eagle_runtime::{Arm, DeviceCompaction, ModuleSource, RunReport, Stop, TeamKind};
    use hawk_host::Isa;
    use hawk_host::tune::{Shape, ShapeChoice, ShapeSource};

    #[test]
    fn reports_survive_the_trip() {
        let mut r = RunReport::default();
        r.build_s = 0.25;
        r.startup = Some(ModuleSource::CacheHit);
        r.startup_s = 1e-3;
        r.launches = 7;
        r.steps = 300;
        r.launches_by_k = [(64, 3), (16, 4)].into_iter().collect();
        r.compactions = 2;
        r.reorders = 1;
        r.samples = 100;
        r.active = 3;
        r.active_by_launch = vec![100, 50, 3];
        r.slots_by_launch = vec![100, 100, 50];
        r.issued_bytes = 1 << 40;
        r.issued_sample_steps = Some(12345);
        r.lanes = Some(ShapeChoice {
            shape: Shape {
                isa: Isa::Avx2,
                lanes: 8,
            },
            source: ShapeSource::Cached,
        });
        r.tuning_launches = 2;
        r.team = TeamKind::Device;
        r.arm = Some(Arm::GraphWhile);
        r.compaction_strategy = Some(DeviceCompaction::Gather);
        r.graphs_built = 1;
        r.graph_replays = 5;
        r.notes = vec!["a note".into(), "another".into()];
        r.stop = Stop::MaxSteps;
        r.finished = 90;
        r.capped = 3;
        r.failed = 7;
        let m = Merged {
            report: r.clone(),
            parts: vec![Part {
                label: "rank 1".into(),
                range: 5..105,
                samples: 100,
                time_s: 1.5,
                report: r,
            }],
            wall_s: 2.0,
            comm_s: 0.1,
        };
        let bytes = to_bytes(&m);
        assert_eq!(from_bytes::<Merged>(&bytes), Some(m));
        // A short message is refused, never a panic.
        assert_eq!(from_bytes::<Merged>(&bytes[..bytes.len() - 3]), None);
    }

    #[test]
    fn headers_survive_the_trip() {
        let h = Header {
            kernel: "lorenz_rk4".into(),
            n: 65_536,
            params: vec![10f64.to_bits(), f64::NAN.to_bits()],
        };
        assert_eq!(from_bytes::<Header>(&to_bytes(&h)), Some(h));
        assert_eq!(from_bytes::<Header>(&[]), None);
    }
}
