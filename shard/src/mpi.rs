//! Ranks across processes and nodes (feature `mpi`, on the `mpi` crate, rsmpi): each rank
//! runs its share of one ensemble on its own [`Fleet`] (its GPUs, else its host team) and
//! the results come back in the caller's order on the root (rank 0), or stay where they
//! are ([`Ranks::run_distributed`]). Every rank returns the same [`Merged`] report (one
//! [`Part`] per rank) or the same [`MpiError`].
//!
//! ```no_run
//! use eagle_shard::mpi::{Balance, Ranks, rsmpi};
//! use eagle_shard::{Devices, Fleet};
//! use hawk::builtin::{Oscillator, OscillatorPlanes};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let universe = rsmpi::initialize().expect("MPI");
//! let world = universe.world();
//! let ranks = Ranks::new(&world).balance(Balance::Static);
//! let fleet = eagle_runtime::deploy(Oscillator, ranks.local_devices(), None)?;
//! let options = eagle_runtime::Options::new(10_000);
//! let run = if ranks.is_root() {
//!     let n = 1_000_000;
//!     let omega: Vec<f64> = (0..n).map(|i| 1.0 + 2.0 * i as f64 / (n - 1) as f64).collect();
//!     let (mut x, mut v, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n]);
//!     let planes = OscillatorPlanes { omega: &omega, t_end: 1.0, dt: 1e-3, x: &mut x, v: &mut v, t: &mut t };
//!     ranks.run_root(&fleet, &options, planes)?        // x, v, t now hold every result
//! } else {
//!     ranks.run_other(&fleet, &options)?
//! };
//! if ranks.is_root() {
//!     println!("{run}");                               // the seed's lines + ranks, imbalance
//! }
//! # Ok(()) }
//! ```
//!
//! ## The protocol, and why nothing hangs
//!
//! Every call is collective: every rank of the communicator makes the same call (`run_root`
//! on rank 0, `run_other` on the others) with the same options and kernel. MPI calls are
//! made from the calling thread only (`MPI_THREAD_FUNNELED` is enough; `Threading::Single`
//! works too, since the root's worker thread never calls MPI).
//!
//! 1. The root checks its planes as one process would (the runtime's own errors) and
//!    broadcasts the kernel's name, the sample count and the params.
//! 2. **Agreement**: every rank contributes its own verdict (the root's check, a kernel
//!    name that differs, ...) to an `all_reduce` (the lowest failing rank); if any rank
//!    failed, that rank broadcasts its message and every rank returns the same
//!    [`MpiError`]. Nothing has run or moved yet.
//! 3. Static balance: contiguous shards by rank weight (the fleets' weights, equal by
//!    default); the root sends each rank its inputs and state (point to point, at most
//!    1 GiB per message), every rank runs its shard. Dynamic balance: the ranks ask the
//!    root for chunks (contiguous; guided sizes that shrink towards the end, or `chunk`
//!    samples each) until none are left; the root's own
//!    share runs on a worker thread while its calling thread serves the others, so the
//!    root computes too. Results come back with the next request.
//! 4. **Agreement** again on the run (a device fault, a refused shard): the same error on
//!    every rank, before anything is gathered.
//! 5. The root receives the results into the caller's planes (in the caller's order, by
//!    construction), gathers each rank's report, merges them and broadcasts the merge.
//!
//! A rank that dies (a panic, a signal) ends the job through `mpirun`; a rank that never
//! makes the call hangs the others as any MPI collective would: give `mpirun` a timeout.
//!
//! ## Gathering vs leaving results distributed: the cost on paper
//!
//! 10^10 Lorenz samples (`LorenzRk4`, f64, to t = 1: 1,000 steps) on 64 H200 GPUs (8 nodes
//! x 8, one rank per GPU), static shards of 1.56 x 10^8 samples:
//!
//! - **Bytes**: per sample 1 input plane (rho, 8 B), 4 state planes (x, y, z, t: 32 B)
//!   and a status byte; the 4 params once. Scattering from one root moves 40 B x 10^10 =
//!   400 GB, gathering 33 B x 10^10 = 330 GB; 7/8 of each crosses the network into or out
//!   of the root's node (350 GB and 289 GB).
//! - **Time**, assuming 200 Gb/s HDR InfiniBand, one 25 GB/s link per node: the root's
//!   link is the bottleneck, so the scatter takes 350 / 25 = 14 s and the gather 11.6 s at
//!   best (the root node's own 7 ranks move their 1/8 over shared memory, about a second
//!   more). With 8 x 400 Gb/s NDR into the root (one link per GPU) each is still about 1 s.
//! - **Against the compute**: 76 FLOPs per step (the card counts them) x 1,000 steps x
//!   10^10 samples = 7.6 x 10^14 FLOP; 64 x 33.5 TFLOP/s FP64 at a useful 50% run it in
//!   about 0.7 s (each GPU's 6 GB of planes fit its memory many times over; its host
//!   transfers, about 0.1 s each way over PCIe 5, run in parallel).
//! - **Memory**: the root must hold 400 GB of planes in host memory.
//!
//! So for this run, gathering costs ~15x, and scatter plus gather ~35x, the computing.
//! Gathering pays only when the run is long per byte (10^6 steps: 700 s of compute against
//! 25 s of moving) and the root needs every sample. Otherwise leave results distributed
//! ([`Ranks::run_distributed`]): each rank builds its own share's initial state from
//! [`crate::share`]`(n, rank, size)` (no scatter at all), reduces what it needs
//! (statistics, histograms, the failed samples: kilobytes to the root) or writes its shard
//! to a parallel file system; only the merged report travels.

use crate::fleet::{Devices, Fleet};
pub use crate::ranks::{Balance, MpiError, MpiRun};
use crate::report::{Merged, Part, merge_parallel, merge_sequence};
use crate::split::{Collected, Ordered, Piece, ranges};
use crate::wire::{Header, from_bytes, to_bytes};
use eagle_runtime::{Error, Options, RunReport, Status};
use hawk::{Kernel, PlaneSource, Real, Role};
use hawk_host::HostReal;
use mpi::collective::SystemOperation;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Root, Source};
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The `mpi` crate (rsmpi) this module is built on, for `initialize` and communicators.
pub use ::mpi as rsmpi;

/// The ranks of a communicator, ready to share ensembles. Rank 0 is the root.
pub struct Ranks<'c, C: Communicator> {
    comm: &'c C,
    balance: Balance,
}

impl<C: Communicator> Clone for Ranks<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: Communicator> Copy for Ranks<'_, C> {}

const ROOT: i32 = 0;
const TAG_DATA: i32 = 11;
const TAG_ASK: i32 = 12;
const TAG_GIVE: i32 = 13;
const TAG_REPORT: i32 = 14;
/// Largest message: MPI counts are `int`.
const MAX_MSG: usize = 1 << 30;

fn as_bytes<R: HostReal>(s: &[R]) -> &[u8] {
    // SAFETY: `HostReal: Real`, which is sealed to `f32` and `f64`: no padding bytes.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(s)) }
}

fn as_bytes_mut<R: HostReal>(s: &mut [R]) -> &mut [u8] {
    // SAFETY: as above, and every bit pattern is a valid `f32`/`f64`.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), std::mem::size_of_val(s)) }
}

fn status_byte(s: Status) -> u8 {
    match s {
        Status::Active => 0,
        Status::Finished => 1,
        Status::Capped => 2,
        Status::Failed => 3,
    }
}

fn byte_status(b: u8) -> Status {
    match b {
        1 => Status::Finished,
        2 => Status::Capped,
        3 => Status::Failed,
        _ => Status::Active,
    }
}

/// What a rank ran: its part of the merged report and its samples' status.
struct Ran {
    part: Part,
    status: Vec<Status>,
}

impl<'c, C: Communicator> Ranks<'c, C> {
    /// The ranks of `comm`, static balance.
    pub fn new(comm: &'c C) -> Self {
        Ranks {
            comm,
            balance: Balance::Static,
        }
    }

    /// Sets the balance of [`Ranks::run_root`] / [`Ranks::run_other`].
    pub fn balance(mut self, b: Balance) -> Self {
        self.balance = b;
        self
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    /// Ranks in the communicator.
    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }

    /// `true` on rank 0, the root.
    pub fn is_root(&self) -> bool {
        self.comm.rank() == ROOT
    }

    /// This process's devices when several ranks share a node: [`Devices::Share`] with its
    /// node-local index (from `MPI_Comm_split_type(SHARED)`); collective.
    pub fn local_devices(&self) -> Devices {
        let node = self.comm.split_shared(self.comm.rank());
        Devices::Share {
            index: node.rank() as usize,
            of: node.size() as usize,
        }
    }

    /// The root's side of a gathered run: `planes` hold the whole ensemble; on success they
    /// hold every rank's results, in the caller's order. Collective: every other rank calls
    /// [`Ranks::run_other`] meanwhile.
    ///
    /// Bad input is refused on every rank with the runtime's own error message, before
    /// anything moves. On an error during the run the root's planes are, shard by shard
    /// (chunk by chunk with dynamic balance), as before or fully updated.
    ///
    /// # Panics
    /// When called on a rank other than 0.
    pub fn run_root<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        assert!(
            self.is_root(),
            "run_root is for rank 0; others call run_other"
        );
        self.gathered(fleet, options, Some(planes))
    }

    /// Every other rank's side of [`Ranks::run_root`].
    ///
    /// # Panics
    /// When called on rank 0.
    pub fn run_other<K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        assert!(!self.is_root(), "rank 0 calls run_root");
        self.gathered(fleet, options, None::<eagle_runtime::PlaneSet<'_, K::Real>>)
    }

    /// A run over planes that each rank holds itself (its share, e.g. [`crate::share`]; a share
    /// may be empty): nothing moves but reports, results stay on their rank. Collective.
    /// Static balance whatever [`Ranks::balance`] says (the data already lie where they
    /// are). An ensemble empty on every rank is refused, as one process refuses it.
    pub fn run_distributed<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        planes: impl PlaneSource<'a, K::Real>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        let t0 = Instant::now();
        let header = Header {
            kernel: K::NAME.into(),
            ..Header::default()
        };
        let header = self.broadcast_bytes(self.is_root().then(|| to_bytes(&header)));
        let name = from_bytes::<Header>(&header).unwrap_or_default().kernel;
        let checked = if name != K::NAME {
            Err(format!(
                "runs kernel `{}`, the root runs `{name}`: every rank must run the same",
                K::NAME
            ))
        } else {
            Collected::collect(planes)
                .check(&fleet.parts()[0], options, true)
                .map_err(|e| e.to_string())
        };
        let ordered = self.agree(checked)?;
        // Every rank's count: the total, and where this rank's share starts.
        let local_n = ordered.n as u64;
        let mut counts = vec![0u64; self.size()];
        self.comm.all_gather_into(&local_n, &mut counts[..]);
        let total: u64 = counts.iter().sum();
        let start = counts[..self.rank()].iter().sum::<u64>() as usize;
        if total == 0 {
            let plane = K::PLANES
                .iter()
                .find(|p| p.role != Role::Param)
                .map(|p| hawk::ComponentName(p.name, p.len.map(|_| 0)).to_string())
                .unwrap_or_default();
            return Err(MpiError {
                rank: 0,
                message: Error::Empty { plane }.to_string(),
            });
        }
        let range = start..start + ordered.n;
        let ran = run_local(fleet, options, ordered, self.rank(), range);
        let ran = self.agree(ran.map_err(|e| e.to_string()))?;
        let merged = self.merge_reports(&ran.part, t0, 0.0);
        Ok(MpiRun {
            merged,
            status: ran.status,
        })
    }

    fn gathered<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        planes: Option<impl PlaneSource<'a, K::Real>>,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        let t0 = Instant::now();
        // 1. The root checks its planes, then says what runs.
        let checked = planes.map(|p| {
            Collected::collect(p)
                .check(&fleet.parts()[0], options, false)
                .map_err(|e| e.to_string())
        });
        let header = self.broadcast_bytes(checked.as_ref().map(|c| {
            let (n, params) = match c {
                Ok(o) => (o.n, o.params.iter().map(|&p| raw_bits(p)).collect()),
                Err(_) => (0, Vec::new()),
            };
            to_bytes(&Header {
                kernel: K::NAME.into(),
                n,
                params,
            })
        }));
        let Header {
            kernel: name,
            n,
            params: param_bits,
        } = from_bytes(&header).unwrap_or_default();
        // 2. Agreement: the root's check, every rank's kernel.
        let verdict: Result<Option<Ordered<'a, K::Real>>, String> = match checked {
            Some(c) => c.map(Some),
            None if name != K::NAME => Err(format!(
                "runs kernel `{}`, the root runs `{name}`: every rank must run the same",
                K::NAME
            )),
            None => Ok(None),
        };
        let root_planes = self.agree(verdict)?;
        let params = match &root_planes {
            Some(o) => o.params.clone(),
            None => param_bits.into_iter().map(from_raw_bits).collect(),
        };
        match self.balance {
            Balance::Static => self.gathered_static(fleet, options, root_planes, params, n, t0),
            Balance::Dynamic { chunk } => {
                self.gathered_dynamic(fleet, options, root_planes, params, n, chunk, t0)
            }
        }
    }

    fn gathered_static<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        root_planes: Option<Ordered<'a, K::Real>>,
        params: Vec<K::Real>,
        n: usize,
        t0: Instant,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        let (size, rank) = (self.size(), self.rank());
        // Shards by rank weight (each rank's fleet's total).
        let weight: f64 = fleet.weights().iter().sum();
        let mut weights = vec![0.0f64; size];
        self.comm.all_gather_into(&weight, &mut weights[..]);
        let shards = ranges(n, &weights);
        let mine = shards[rank].clone();
        let mut comm_s = 0.0;
        let (n_in, n_mut) = (K::count(Role::In), K::count(Role::Mut));
        if let Some(ordered) = root_planes {
            let (_, mut pieces) = ordered.cut(&shards);
            let own = pieces.remove(0);
            // 3. Scatter the other shards' planes.
            let tc = Instant::now();
            for (r, p) in pieces.iter().enumerate() {
                let dest = self.comm.process_at_rank(r as i32 + 1);
                for d in &p.ins {
                    send(&dest, as_bytes(d));
                }
                for d in &p.muts {
                    send(&dest, as_bytes(d));
                }
            }
            comm_s += tc.elapsed().as_secs_f64();
            let own_ordered = Ordered {
                n: own.range.len(),
                ins: own.ins,
                params,
                muts: own.muts,
            };
            let ran = run_local(fleet, options, own_ordered, rank, mine.clone());
            // 4. Agreement on the run.
            let ran = self.agree(ran.map_err(|e| e.to_string()))?;
            // 5. Gather: results into the caller's planes, then the reports.
            let tc = Instant::now();
            let mut status = vec![Status::Active; n];
            status[mine.clone()].copy_from_slice(&ran.status);
            for (r, mut p) in pieces.into_iter().enumerate() {
                let src = self.comm.process_at_rank(r as i32 + 1);
                for d in p.muts.iter_mut() {
                    receive(&src, as_bytes_mut(d));
                }
                let mut bytes = vec![0u8; p.range.len()];
                receive(&src, &mut bytes);
                for (s, b) in status[p.range.clone()].iter_mut().zip(bytes) {
                    *s = byte_status(b);
                }
            }
            comm_s += tc.elapsed().as_secs_f64();
            let merged = self.merge_reports(&ran.part, t0, comm_s);
            Ok(MpiRun { merged, status })
        } else {
            let len = mine.len();
            let root = self.comm.process_at_rank(ROOT);
            let mut ins: Vec<Vec<K::Real>> = vec![vec![K::Real::from_f64(0.0); len]; n_in];
            let mut muts: Vec<Vec<K::Real>> = vec![vec![K::Real::from_f64(0.0); len]; n_mut];
            for d in ins.iter_mut().chain(muts.iter_mut()) {
                receive(&root, as_bytes_mut(d));
            }
            let ordered = Ordered {
                n: len,
                ins: ins.iter().map(|d| &d[..]).collect(),
                params,
                muts: muts.iter_mut().map(|d| &mut d[..]).collect(),
            };
            let ran = run_local(fleet, options, ordered, rank, mine);
            let ran = self.agree(ran.map_err(|e| e.to_string()))?;
            for d in &muts {
                send(&root, as_bytes(d));
            }
            let bytes: Vec<u8> = ran.status.iter().map(|s| status_byte(*s)).collect();
            send(&root, &bytes);
            let merged = self.merge_reports(&ran.part, t0, 0.0);
            Ok(MpiRun {
                merged,
                status: Vec::new(),
            })
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn gathered_dynamic<'a, K: Kernel>(
        &self,
        fleet: &Fleet<K>,
        options: &Options,
        root_planes: Option<Ordered<'a, K::Real>>,
        params: Vec<K::Real>,
        n: usize,
        chunk: usize,
        t0: Instant,
    ) -> Result<MpiRun, MpiError>
    where
        K::Real: HostReal,
    {
        let rank = self.rank();
        let size = self.size();
        let (n_in, n_mut) = (K::count(Role::In), K::count(Role::Mut));
        let label = format!("rank {rank}");
        if let Some(ordered) = root_planes {
            // The samples not handed out yet; each chunk is cut off its front.
            let rest = Mutex::new(Rest {
                start: 0,
                n,
                ins: ordered.ins,
                muts: ordered.muts,
            });
            let stop = AtomicBool::new(false);
            let take = || {
                if stop.load(Ordering::SeqCst) {
                    return None;
                }
                rest.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take(chunk_len(chunk, n, size))
            };
            let mut status = vec![Status::Active; n];
            let mut comm_s = 0.0;
            let own = std::thread::scope(|scope| {
                // The root's own share: chunks on a worker thread (no MPI calls there).
                let own = scope.spawn(|| {
                    let mut runs: Vec<Ran> = Vec::new();
                    loop {
                        let Some(p) = take() else {
                            return Ok(runs);
                        };
                        let o = Ordered {
                            n: p.range.len(),
                            ins: p.ins,
                            params: params.clone(),
                            muts: p.muts,
                        };
                        match run_local(fleet, options, o, rank, p.range.clone()) {
                            Ok(ran) => runs.push(ran),
                            Err(e) => {
                                stop.store(true, Ordering::SeqCst);
                                return Err(e);
                            }
                        }
                    }
                });
                // The calling thread serves the other ranks.
                let mut active = self.size() - 1;
                let mut out: Vec<Option<Piece<'a, K::Real>>> =
                    (0..self.size()).map(|_| None).collect();
                while active > 0 {
                    let Some((msg, st)) = self
                        .comm
                        .any_process()
                        .immediate_matched_probe_with_tag(TAG_ASK)
                    else {
                        std::thread::sleep(Duration::from_micros(100));
                        continue;
                    };
                    let src = st.source_rank();
                    let (ask, _) = msg.matched_receive::<u64>();
                    let from = self.comm.process_at_rank(src);
                    let tc = Instant::now();
                    // The previous chunk's results, or its failure.
                    match ask {
                        ASK_RESULT => {
                            let mut p = out[src as usize].take().expect("a chunk was out");
                            for d in p.muts.iter_mut() {
                                receive(&from, as_bytes_mut(d));
                            }
                            let mut bytes = vec![0u8; p.range.len()];
                            receive(&from, &mut bytes);
                            for (s, b) in status[p.range.clone()].iter_mut().zip(bytes) {
                                *s = byte_status(b);
                            }
                        }
                        ASK_FAILED => {
                            stop.store(true, Ordering::SeqCst);
                        }
                        _ => {}
                    }
                    if let Some(p) = take() {
                        let head = [GIVE_CHUNK, p.range.start as u64, p.range.len() as u64];
                        from.send_with_tag(&head[..], TAG_GIVE);
                        for d in &p.ins {
                            send(&from, as_bytes(d));
                        }
                        for d in &p.muts {
                            send(&from, as_bytes(d));
                        }
                        out[src as usize] = Some(p);
                    } else {
                        from.send_with_tag(&[GIVE_STOP, 0, 0][..], TAG_GIVE);
                        active -= 1;
                    }
                    comm_s += tc.elapsed().as_secs_f64();
                }
                own.join().expect("the root's worker thread panicked")
            });
            let runs = self.agree(own.map_err(|e| e.to_string()))?;
            for r in &runs {
                status[r.part.range.clone()].copy_from_slice(&r.status);
            }
            let part = sequence(label, &runs);
            let merged = self.merge_reports(&part, t0, comm_s);
            Ok(MpiRun { merged, status })
        } else {
            let root = self.comm.process_at_rank(ROOT);
            let mut runs: Vec<Ran> = Vec::new();
            let mut failure: Option<Error> = None;
            let mut ask = ASK_FIRST;
            let mut ins: Vec<Vec<K::Real>> = vec![Vec::new(); n_in];
            let mut muts: Vec<Vec<K::Real>> = vec![Vec::new(); n_mut];
            loop {
                root.send_with_tag(&ask, TAG_ASK);
                if ask == ASK_RESULT {
                    let last = runs.last().expect("a result follows a run");
                    for d in &muts {
                        send(&root, as_bytes(d));
                    }
                    let bytes: Vec<u8> = last.status.iter().map(|s| status_byte(*s)).collect();
                    send(&root, &bytes);
                }
                let (give, _) = root.receive_vec_with_tag::<u64>(TAG_GIVE);
                if give.first() != Some(&GIVE_CHUNK) {
                    break;
                }
                let (start, len) = (give[1] as usize, give[2] as usize);
                for d in ins.iter_mut().chain(muts.iter_mut()) {
                    d.resize(len, K::Real::from_f64(0.0));
                    receive(&root, as_bytes_mut(d));
                }
                let o = Ordered {
                    n: len,
                    ins: ins.iter().map(|d| &d[..]).collect(),
                    params: params.clone(),
                    muts: muts.iter_mut().map(|d| &mut d[..]).collect(),
                };
                match run_local(fleet, options, o, rank, start..start + len) {
                    Ok(ran) => {
                        runs.push(ran);
                        ask = ASK_RESULT;
                    }
                    Err(e) => {
                        failure = Some(e);
                        ask = ASK_FAILED;
                    }
                }
            }
            self.agree(failure.map_or(Ok(()), |e| Err(e.to_string())))?;
            let part = sequence(label, &runs);
            let merged = self.merge_reports(&part, t0, 0.0);
            Ok(MpiRun {
                merged,
                status: Vec::new(),
            })
        }
    }

    /// Broadcasts bytes from the root (`Some` there, `None` elsewhere).
    fn broadcast_bytes(&self, bytes: Option<Vec<u8>>) -> Vec<u8> {
        let root = self.comm.process_at_rank(ROOT);
        let mut len = bytes.as_ref().map_or(0, |b| b.len() as u64);
        root.broadcast_into(&mut len);
        let mut buf = bytes.unwrap_or_else(|| vec![0; len as usize]);
        for part in buf.chunks_mut(MAX_MSG) {
            root.broadcast_into(part);
        }
        buf
    }

    /// The agreement step (collective): every rank gives its verdict; if any failed, every
    /// rank gets the lowest failing rank's message as the same [`MpiError`], else its own
    /// value back. Put one after anything that can fail on some ranks only (a deploy, a
    /// file read) and before the next collective, so that no rank waits for one that
    /// gave up.
    pub fn agree<T>(&self, verdict: Result<T, String>) -> Result<T, MpiError> {
        let size = self.comm.size();
        let mine = if verdict.is_err() {
            self.comm.rank()
        } else {
            size
        };
        let mut first = size;
        self.comm
            .all_reduce_into(&mine, &mut first, SystemOperation::min());
        if first == size {
            return Ok(verdict.unwrap_or_else(|_| unreachable!("no rank failed")));
        }
        let message = match &verdict {
            Err(m) if self.comm.rank() == first => m.clone().into_bytes(),
            _ => Vec::new(),
        };
        let root = self.comm.process_at_rank(first);
        let mut len = message.len() as u64;
        root.broadcast_into(&mut len);
        let mut buf = if self.comm.rank() == first {
            message
        } else {
            vec![0; len as usize]
        };
        root.broadcast_into(&mut buf[..]);
        Err(MpiError {
            rank: first as usize,
            message: String::from_utf8_lossy(&buf).into_owned(),
        })
    }

    /// Gathers every rank's part on the root, merges them, and gives every rank the merge.
    fn merge_reports(&self, mine: &Part, t0: Instant, comm_s: f64) -> Merged {
        let root = self.comm.process_at_rank(ROOT);
        let mine_bytes = to_bytes(mine);
        let merged = if self.is_root() {
            let mut parts = vec![mine.clone()];
            for r in 1..self.comm.size() {
                let (bytes, _) = self
                    .comm
                    .process_at_rank(r)
                    .receive_vec_with_tag::<u8>(TAG_REPORT);
                parts.push(from_bytes::<Part>(&bytes).expect("a rank sent a malformed report"));
            }
            let reports: Vec<&RunReport> = parts.iter().map(|p| &p.report).collect();
            let merged = Merged {
                report: merge_parallel(&reports),
                parts,
                wall_s: t0.elapsed().as_secs_f64(),
                comm_s,
            };
            Some(to_bytes(&merged))
        } else {
            root.send_with_tag(&mine_bytes[..], TAG_REPORT);
            None
        };
        let bytes = self.broadcast_bytes(merged);
        from_bytes::<Merged>(&bytes).expect("the root sent a malformed report")
    }
}

/// The samples a dynamic run has not handed out yet: the planes' tails from `start`.
struct Rest<'a, R> {
    start: usize,
    n: usize,
    ins: Vec<&'a [R]>,
    muts: Vec<&'a mut [R]>,
}

impl<'a, R> Rest<'a, R> {
    /// The next chunk: at most `len(left)` samples cut off the front; `None` when none is
    /// left.
    fn take(&mut self, len: impl Fn(usize) -> usize) -> Option<Piece<'a, R>> {
        let left = self.n - self.start;
        if left == 0 {
            return None;
        }
        let len = len(left).clamp(1, left);
        let ins = self
            .ins
            .iter_mut()
            .map(|d| {
                let (head, tail) = d.split_at(len);
                *d = tail;
                head
            })
            .collect();
        let muts = self
            .muts
            .iter_mut()
            .map(|d| {
                let (head, tail) = std::mem::take(d).split_at_mut(len);
                *d = tail;
                head
            })
            .collect();
        let range = self.start..self.start + len;
        self.start += len;
        Some(Piece { range, ins, muts })
    }
}

/// A dynamic run's chunk length with `left` samples left: `chunk` when given; else guided
/// self-scheduling: half of an even share of what is left (`left / (2 x ranks)`), so
/// chunks shrink as the run ends and the last ones, short, fill the gaps; never below
/// `n / (64 x ranks)` (each chunk is a run of its own, with a run's fixed costs).
fn chunk_len(chunk: usize, n: usize, ranks: usize) -> impl Fn(usize) -> usize {
    move |left| {
        if chunk > 0 {
            chunk
        } else {
            left.div_ceil(2 * ranks).max(n / (64 * ranks)).max(1)
        }
    }
}

const ASK_FIRST: u64 = 0;
const ASK_RESULT: u64 = 1;
const ASK_FAILED: u64 = 2;
const GIVE_STOP: u64 = 0;
const GIVE_CHUNK: u64 = 1;

fn send(dest: &impl Destination, bytes: &[u8]) {
    for part in bytes.chunks(MAX_MSG) {
        dest.send_with_tag(part, TAG_DATA);
    }
}

fn receive(src: &impl Source, bytes: &mut [u8]) {
    for part in bytes.chunks_mut(MAX_MSG) {
        src.receive_into_with_tag(part, TAG_DATA);
    }
}

/// A value's exact bits, zero-extended (an `f32`'s 4 bytes or an `f64`'s 8).
fn raw_bits<R: HostReal>(v: R) -> u64 {
    let mut b = [0u8; 8];
    let src = as_bytes(std::slice::from_ref(&v));
    b[..src.len()].copy_from_slice(src);
    u64::from_le_bytes(b)
}

/// The value whose bits [`raw_bits`] gave.
fn from_raw_bits<R: HostReal>(bits: u64) -> R {
    let mut v = R::from_f64(0.0);
    let dst = as_bytes_mut(std::slice::from_mut(&mut v));
    let len = dst.len();
    dst.copy_from_slice(&bits.to_le_bytes()[..len]);
    v
}

/// Runs one rank's shard (or chunk) on its fleet: its part of the report and the status.
fn run_local<K: Kernel>(
    fleet: &Fleet<K>,
    options: &Options,
    ordered: Ordered<'_, K::Real>,
    rank: usize,
    range: Range<usize>,
) -> Result<Ran, Error>
where
    K::Real: HostReal,
{
    let label = format!("rank {rank}");
    if ordered.n == 0 {
        return Ok(Ran {
            part: Part {
                label,
                range,
                samples: 0,
                time_s: 0.0,
                report: crate::report::empty_report(),
            },
            status: Vec::new(),
        });
    }
    let t = Instant::now();
    let n = ordered.n;
    let mut runner = fleet.runners(options.clone(), ordered)?;
    let merged = runner.run()?;
    runner.to_host()?;
    let status = runner.status();
    Ok(Ran {
        part: Part {
            label,
            range,
            samples: n,
            time_s: t.elapsed().as_secs_f64(),
            report: merged.report,
        },
        status,
    })
}

/// A rank's chunks, one after another, as its part.
fn sequence(label: String, runs: &[Ran]) -> Part {
    let reports: Vec<&RunReport> = runs.iter().map(|r| &r.part.report).collect();
    Part {
        label,
        range: 0..0,
        samples: runs.iter().map(|r| r.part.samples).sum(),
        time_s: runs.iter().map(|r| r.part.time_s).sum(),
        report: if runs.is_empty() {
            crate::report::empty_report()
        } else {
            merge_sequence(&reports)
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guided_chunks_cover_the_ensemble_in_order_and_shrink() {
        let n = 16_384;
        let (a, mut b) = (vec![0.0f64; n], vec![0.0f64; n]);
        let mut rest = Rest {
            start: 0,
            n,
            ins: vec![&a[..]],
            muts: vec![&mut b[..]],
        };
        let mut lens = Vec::new();
        let mut next = 0;
        while let Some(p) = rest.take(chunk_len(0, n, 2)) {
            assert_eq!(p.range.start, next);
            assert_eq!(
                (p.ins[0].len(), p.muts[0].len()),
                (p.range.len(), p.range.len())
            );
            next = p.range.end;
            lens.push(p.range.len());
        }
        assert_eq!(next, n);
        assert_eq!(lens[0], n / 4, "half an even share of everything");
        assert!(lens.windows(2).all(|w| w[0] >= w[1]), "{lens:?}");
        assert!(
            lens.iter()
                .all(|&l| l >= n / 128 || l == *lens.last().unwrap())
        );
        // A fixed chunk, and the last one shorter.
        let mut rest = Rest {
            start: 0,
            n: 10,
            ins: vec![&a[..10]],
            muts: vec![&mut b[..10]],
        };
        let lens: Vec<usize> = std::iter::from_fn(|| rest.take(chunk_len(4, 10, 3)))
            .map(|p| p.range.len())
            .collect();
        assert_eq!(lens, [4, 4, 2]);
    }
}
