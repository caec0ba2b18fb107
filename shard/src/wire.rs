//! Reports as bytes, for sending between ranks: a flat little-endian encoding of
//! [`RunReport`], [`Part`] and [`Merged`] (no serde: the runtime's types stay free of it).
//! Fields added to `RunReport` later travel as their default until they are added here.

use crate::report::{Merged, Part};
use eagle_runtime::{Arm, DeviceCompaction, ModuleSource, RunReport, Stop, TeamKind};
use hawk_host::Isa;
use hawk_host::tune::{Shape, ShapeChoice, ShapeSource};

/// Writes values one after another.
#[derive(Default)]
pub(crate) struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub fn usize(&mut self, v: usize) {
        self.u64(v as u64);
    }
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub fn bool(&mut self, v: bool) {
        self.u64(u64::from(v));
    }
    pub fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn usizes(&mut self, v: &[usize]) {
        self.usize(v.len());
        for &x in v {
            self.usize(x);
        }
    }
}

/// Reads what a [`Writer`] wrote; `None` on a short or malformed message.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }
    pub fn u64(&mut self) -> Option<u64> {
        let (head, tail) = self.bytes.split_at_checked(8)?;
        self.bytes = tail;
        Some(u64::from_le_bytes(head.try_into().ok()?))
    }
    pub fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
    pub fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    pub fn bool(&mut self) -> Option<bool> {
        self.u64().map(|v| v != 0)
    }
    pub fn str(&mut self) -> Option<String> {
        let len = self.usize()?;
        let (head, tail) = self.bytes.split_at_checked(len)?;
        self.bytes = tail;
        String::from_utf8(head.to_vec()).ok()
    }
    fn usizes(&mut self) -> Option<Vec<usize>> {
        let len = self.usize()?;
        (0..len).map(|_| self.usize()).collect()
    }
}

const STOPS: [Stop; 4] = [Stop::Done, Stop::MaxSteps, Stop::Cancelled, Stop::TimeLimit];
const SOURCES_M: [ModuleSource; 4] = [
    ModuleSource::Host,
    ModuleSource::BuiltInCubin,
    ModuleSource::CacheHit,
    ModuleSource::Jit,
];
const TEAMS: [TeamKind; 2] = [TeamKind::Host, TeamKind::Device];
const ARMS: [Arm; 3] = [Arm::Simulate, Arm::Graph, Arm::GraphWhile];
const STRATEGIES: [DeviceCompaction; 2] = [DeviceCompaction::IndexList, DeviceCompaction::Gather];

/// An optional value as its index in `all` plus one (0: none).
fn put_opt<T: PartialEq>(w: &mut Writer, v: Option<T>, all: &[T]) {
    w.usize(
        v.and_then(|v| all.iter().position(|a| *a == v))
            .map_or(0, |i| i + 1),
    );
}

fn get_opt<T: Copy>(rd: &mut Reader<'_>, all: &[T]) -> Option<Option<T>> {
    match rd.usize()? {
        0 => Some(None),
        i => all.get(i - 1).map(|v| Some(*v)),
    }
}
const SOURCES: [ShapeSource; 5] = [
    ShapeSource::Fixed,
    ShapeSource::Measured,
    ShapeSource::Cached,
    ShapeSource::Probed,
    ShapeSource::Probing,
];

pub(crate) fn put_report(w: &mut Writer, r: &RunReport) {
    w.f64(r.build_s);
    put_opt(w, r.startup, &SOURCES_M);
    w.f64(r.startup_s);
    w.u64(r.launches);
    w.u64(r.steps);
    w.usize(r.launches_by_k.len());
    for (&k, &c) in &r.launches_by_k {
        w.u64(u64::from(k));
        w.u64(c);
    }
    w.u64(r.compactions);
    w.u64(r.reorders);
    w.usize(r.samples);
    w.usize(r.active);
    w.usizes(&r.active_by_launch);
    w.usizes(&r.slots_by_launch);
    w.u64(r.issued_bytes);
    w.bool(r.issued_sample_steps.is_some());
    w.u64(r.issued_sample_steps.unwrap_or(0));
    w.bool(r.lanes.is_some());
    if let Some(l) = r.lanes {
        w.str(l.shape.isa.name());
        w.usize(l.shape.lanes);
        w.usize(SOURCES.iter().position(|s| *s == l.source).unwrap_or(0));
    }
    w.usize(TEAMS.iter().position(|t| *t == r.team).unwrap_or(0));
    put_opt(w, r.arm, &ARMS);
    put_opt(w, r.compaction_strategy, &STRATEGIES);
    w.u64(r.graphs_built);
    w.u64(r.graph_replays);
    w.usize(r.notes.len());
    for n in &r.notes {
        w.str(n);
    }
    w.usize(STOPS.iter().position(|s| *s == r.stop).unwrap_or(0));
    w.usize(r.finished);
    w.usize(r.capped);
    w.usize(r.failed);
}

pub(crate) fn get_report(rd: &mut Reader<'_>) -> Option<RunReport> {
    // `RunReport` is non-exhaustive: a default, then its fields.
    let mut r = RunReport::default();
    r.build_s = rd.f64()?;
    r.startup = get_opt(rd, &SOURCES_M)?;
    r.startup_s = rd.f64()?;
    r.launches = rd.u64()?;
    r.steps = rd.u64()?;
    for _ in 0..rd.usize()? {
        let k = u32::try_from(rd.u64()?).ok()?;
        r.launches_by_k.insert(k, rd.u64()?);
    }
    r.compactions = rd.u64()?;
    r.reorders = rd.u64()?;
    r.samples = rd.usize()?;
    r.active = rd.usize()?;
    r.active_by_launch = rd.usizes()?;
    r.slots_by_launch = rd.usizes()?;
    r.issued_bytes = rd.u64()?;
    let counted = rd.bool()?;
    let steps = rd.u64()?;
    r.issued_sample_steps = counted.then_some(steps);
    if rd.bool()? {
        let isa = Isa::from_name(&rd.str()?)?;
        let lanes = rd.usize()?;
        let source = *SOURCES.get(rd.usize()?)?;
        r.lanes = Some(ShapeChoice {
            shape: Shape { isa, lanes },
            source,
        });
    }
    r.team = *TEAMS.get(rd.usize()?)?;
    r.arm = get_opt(rd, &ARMS)?;
    r.compaction_strategy = get_opt(rd, &STRATEGIES)?;
    r.graphs_built = rd.u64()?;
    r.graph_replays = rd.u64()?;
    for _ in 0..rd.usize()? {
        r.notes.push(rd.str()?);
    }
    r.stop = *STOPS.get(rd.usize()?)?;
    r.finished = rd.usize()?;
    r.capped = rd.usize()?;
    r.failed = rd.usize()?;
    Some(r)
}

pub(crate) fn put_part(w: &mut Writer, p: &Part) {
    w.str(&p.label);
    w.usize(p.range.start);
    w.usize(p.range.end);
    w.usize(p.samples);
    w.f64(p.time_s);
    put_report(w, &p.report);
}

pub(crate) fn get_part(rd: &mut Reader<'_>) -> Option<Part> {
    Some(Part {
        label: rd.str()?,
        range: rd.usize()?..rd.usize()?,
        samples: rd.usize()?,
        time_s: rd.f64()?,
        report: get_report(rd)?,
    })
}

pub(crate) fn put_merged(w: &mut Writer, m: &Merged) {
    put_report(w, &m.report);
    w.usize(m.parts.len());
    for p in &m.parts {
        put_part(w, p);
    }
    w.f64(m.wall_s);
    w.f64(m.comm_s);
}

pub(crate) fn get_merged(rd: &mut Reader<'_>) -> Option<Merged> {
    let report = get_report(rd)?;
    let parts = (0..rd.usize()?)
        .map(|_| get_part(rd))
        .collect::<Option<Vec<_>>>()?;
    Some(Merged {
        report,
        parts,
        wall_s: rd.f64()?,
        comm_s: rd.f64()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut w = Writer::default();
        put_merged(&mut w, &m);
        assert_eq!(get_merged(&mut Reader::new(&w.0)), Some(m));
        // A short message is refused, never a panic.
        assert_eq!(get_merged(&mut Reader::new(&w.0[..w.0.len() - 3])), None);
    }
}
