//! The CUDA backend: cudarc's driver API, loaded at run time (`dynamic-loading`), so the
//! project builds and runs without CUDA; nothing here is touched unless a driver is present.
//!
//! Untested on a GPU in this repository's CI: `scripts/gpu-check.sh` runs it on one.

mod error;
mod graph;
mod link;
mod shared;

use super::cache::DeviceIdentity;
use super::startup::{self, Module, ModuleLoader, ModuleSource, Startup};
use super::{BLOCK, Backend, DevPtr, GraphId};
use crate::error::Error;
use cudarc::driver::{CudaContext, CudaGraph, CudaStream, result, sys};
use error::{describe, dev_err};
use graph::RawGraph;
use hawk::device::{EntryArgs, ParamWord};
use link::{Linker, LoadedModule};
use shared::GpuHealth;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// Why no CUDA device can be used here, or `None` when one can.
pub(crate) fn unavailable_reason() -> Option<String> {
    // SAFETY: the check loads (and unloads) the system's CUDA driver library by its usual
    // names; its initialisers are the driver's own, run by every CUDA program.
    if !unsafe { sys::is_culib_present() } {
        return Some("no CUDA driver (libcuda) found on this machine".into());
    }
    if let Err(e) = result::init() {
        return Some(format!(
            "the CUDA driver failed to initialise: {}",
            describe(&e)
        ));
    }
    match result::device::get_count() {
        Ok(0) => Some("the CUDA driver reports no GPU".into()),
        Ok(_) => None,
        Err(e) => Some(format!(
            "the CUDA driver could not count GPUs: {}",
            describe(&e)
        )),
    }
}

/// CUDA GPUs the driver reports (0 without a driver or a GPU). Never panics: the driver
/// library is looked for before it is touched.
pub(crate) fn gpu_count() -> usize {
    if unavailable_reason().is_some() {
        return 0;
    }
    result::device::get_count().map_or(0, |c| c.max(0) as usize)
}

/// The driver's CUDA version as `major * 1000 + minor * 10` (12030 for 12.3).
pub(crate) fn driver_version() -> Result<i32, Error> {
    let mut v = 0;
    // SAFETY: `v` is a valid place for the version; the call needs no initialisation.
    unsafe { sys::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| dev_err("cuDriverGetVersion", e))?;
    Ok(v)
}

/// A CUDA GPU with the kernels' module loaded: how this deploy started, and the context
/// and module, which every deploy of the same module on the same GPU in this process
/// shares (see `shared`).
pub struct CudaTeam {
    core: Arc<CudaCore>,
    startup: Startup,
}

/// A GPU's (primary) context with one module loaded, its entries looked up so far, and
/// the GPU's health in this process. Each runner makes its own stream on it.
struct CudaCore {
    // Dropped in this order: the module (context still current), then the context.
    module: LoadedModule,
    ctx: Arc<CudaContext>,
    functions: Mutex<HashMap<&'static str, usize>>,
    name: String,
    source: ModuleSource,
    health: Arc<GpuHealth>,
}

// SAFETY: the raw module and function handles are plain driver handles, usable from any
// thread with the context bound; the function cache is behind a mutex.
unsafe impl Send for CudaCore {}
// SAFETY: as for `Send`: shared, the core only hands out handles (the cache is locked).
unsafe impl Sync for CudaCore {}

impl CudaTeam {
    /// Opens GPU 0 and obtains `module` (the kernels' module): the built-in cubin when its
    /// architecture is the GPU's, else a cached or freshly JIT-compiled image of the PTX
    /// (see `startup::obtain`). Call only when [`unavailable_reason`] is `None`.
    pub(crate) fn new(module: &Module<'_>) -> Result<Self, Error> {
        Self::new_on(0, module)
    }

    /// [`CudaTeam::new`] on GPU `ordinal` (0-based, as the driver counts them). A module
    /// this process already loaded on that GPU is reused, context and all (its start-up
    /// says so); a GPU whose context a trap broke is refused until every team on it is
    /// dropped.
    pub(crate) fn new_on(ordinal: usize, module: &Module<'_>) -> Result<Self, Error> {
        if let Some(r) = unavailable_reason() {
            return Err(Error::DeviceUnavailable(r));
        }
        let count = gpu_count();
        if ordinal >= count {
            return Err(Error::DeviceUnavailable(format!(
                "no GPU {ordinal}: the CUDA driver reports {count}"
            )));
        }
        let health = GpuHealth::of(ordinal);
        health
            .check()
            .map_err(|e| Error::DeviceUnavailable(e.to_string()))?;
        let digest: [u8; 32] = {
            use sha2::{Digest, Sha256};
            Sha256::new()
                .chain_update(module.name)
                .chain_update([0])
                .chain_update(module.ptx)
                .finalize()
                .into()
        };
        if let Some(core) = shared::loaded::<CudaCore>(ordinal, &digest) {
            let startup = Startup {
                source: core.source,
                load_s: 0.0,
                notes: vec![format!(
                    "module `{}` was already loaded on this GPU by this process: reused",
                    module.name
                )],
            };
            return Ok(CudaTeam { core, startup });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| dev_err("creating a CUDA context", e))?;
        // Raw allocations only, but graphs must not see cudarc's event bookkeeping.
        // SAFETY: the contract is about `CudaSlice`s used across streams; this team makes
        // none (raw allocations only, each used by the one runner, on its one stream, that
        // allocated it).
        unsafe { ctx.disable_event_tracking() };
        let name = ctx.name().unwrap_or_else(|_| "CUDA GPU".into());
        use sys::CUdevice_attribute::*;
        let cc = (
            ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
                .map_err(|e| dev_err("compute capability", e))?,
            ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
                .map_err(|e| dev_err("compute capability", e))?,
        );
        let mut loader = CudaLoader {
            id: DeviceIdentity {
                name: name.clone(),
                compute_capability: cc,
                driver_version: driver_version()?,
            },
        };
        let (loaded, startup) = startup::obtain(&mut loader, module)?;
        let core = Arc::new(CudaCore {
            module: loaded,
            ctx,
            functions: Mutex::new(HashMap::new()),
            name,
            source: startup.source,
            health,
        });
        shared::keep(ordinal, digest, core.clone());
        Ok(CudaTeam { core, startup })
    }

    /// How the module was obtained (built-in cubin, cache hit, JIT) and what it cost.
    pub fn startup(&self) -> &Startup {
        &self.startup
    }

    /// The GPU's name.
    pub fn name(&self) -> &str {
        &self.core.name
    }
}

impl CudaCore {
    /// The entry `symbol` (looked up once per core; each backend keeps its own copy).
    fn function(&self, symbol: &'static str) -> Result<sys::CUfunction, Error> {
        let mut f = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&p) = f.get(symbol) {
            return Ok(p as sys::CUfunction);
        }
        let func = self.module.function(symbol)?;
        f.insert(symbol, func as usize);
        Ok(func)
    }
}

impl Drop for CudaCore {
    fn drop(&mut self) {
        // The module is unloaded with the context current.
        let _ = self.ctx.bind_to_thread();
    }
}

/// Loads images and JIT-compiles PTX on the current context, for `startup::obtain`.
struct CudaLoader {
    id: DeviceIdentity,
}

impl ModuleLoader for CudaLoader {
    type Handle = LoadedModule;
    fn identity(&self) -> &DeviceIdentity {
        &self.id
    }
    fn load_image(&mut self, image: &[u8]) -> Result<LoadedModule, String> {
        LoadedModule::load(image).map_err(|e| describe(&e))
    }
    fn jit(&mut self, ptx: &str) -> Result<(Vec<u8>, LoadedModule), Error> {
        let mut link = Linker::new()?;
        link.add_ptx(c"hawk.ptx", ptx)?;
        let image = link.finish()?;
        let module = LoadedModule::load(&image)
            .map_err(|e| dev_err("loading the JIT-compiled module", e))?;
        Ok((image, module))
    }
}

/// The CUDA backend of one runner: its stream, allocations and graphs, each freed when
/// dropped. Every method binds the context first (a runner may run on a new thread each
/// run), fails at once on a GPU whose context broke, and records a trap or a lost context
/// for every team on the GPU (`GpuHealth::note`).
pub(crate) struct CudaBackend {
    team: Arc<CudaCore>,
    /// This runner's own stream: captures and synchronizations of two runners of one
    /// team never meet.
    stream: Arc<CudaStream>,
    allocations: Vec<DevPtr>,
    graphs: Vec<CudaGraph>,
    /// WHILE graphs (ids from `WHILE_BASE` on), built at the driver level.
    while_graphs: Vec<RawGraph>,
    /// The linked condition-setter module and its entry, once loaded.
    set_conditional: Option<(LoadedModule, sys::CUfunction)>,
    /// Entries already looked up (no lock on the launch path).
    functions: HashMap<&'static str, sys::CUfunction>,
    /// A launch's parameter values and the pointers to them (kept: no allocation per
    /// launch once they have grown).
    words: Vec<(usize, ParamWord)>,
    values: Vec<u64>,
    starts: Vec<usize>,
    pointers: Vec<*mut c_void>,
}

impl CudaBackend {
    pub fn new(team: Arc<CudaTeam>) -> Result<Self, Error> {
        let team = team.core.clone();
        team.health.check()?;
        team.ctx
            .bind_to_thread()
            .map_err(|e| team.health.note(dev_err("binding the context", e)))?;
        let stream = team
            .ctx
            .new_stream()
            .map_err(|e| team.health.note(dev_err("creating a stream", e)))?;
        Ok(CudaBackend {
            team,
            stream,
            allocations: Vec::new(),
            graphs: Vec::new(),
            while_graphs: Vec::new(),
            set_conditional: None,
            functions: HashMap::new(),
            words: Vec::new(),
            values: Vec::new(),
            starts: Vec::new(),
            pointers: Vec::new(),
        })
    }
    fn cu_stream(&self) -> sys::CUstream {
        self.stream.cu_stream()
    }
    /// Makes the team's context current on the calling thread (a runner may move threads),
    /// after checking that no trap broke it.
    fn bind(&self) -> Result<(), Error> {
        self.team.health.check()?;
        self.team
            .ctx
            .bind_to_thread()
            .map_err(|e| self.fail("binding the context", e))
    }
    /// A driver error as an [`Error`], recorded for the whole GPU when it breaks the
    /// context.
    fn fail(&self, what: &str, e: cudarc::driver::DriverError) -> Error {
        self.team.health.note(dev_err(what, e))
    }
    /// Waits for this runner's stream.
    fn synchronize(&self) -> Result<(), Error> {
        self.stream
            .synchronize()
            .map_err(|e| self.fail("synchronizing", e))
    }
    fn function(&mut self, symbol: &'static str) -> Result<sys::CUfunction, Error> {
        if let Some(&f) = self.functions.get(symbol) {
            return Ok(f);
        }
        let f = self.team.function(symbol)?;
        self.functions.insert(symbol, f);
        Ok(f)
    }
    /// Launches `f` over `threads` threads with the parameters in `self.words` (each word
    /// with its parameter's position). Each parameter starts at an 8-aligned offset of
    /// `values`; its words follow one another at their own sizes (an array parameter's
    /// elements packed, as the entry declares it), little-endian as every CUDA host is.
    ///
    /// # Safety
    /// `f` is an entry of a module loaded on this backend's context, and `self.words` are
    /// its parameters, in order, meeting its contract (as [`Backend::launch`]'s).
    unsafe fn launch_words(&mut self, f: sys::CUfunction, threads: u32) -> Result<(), Error> {
        self.values.clear();
        self.starts.clear();
        let (mut at, mut last) = (0usize, None);
        for &(param, w) in &self.words {
            if last != Some(param) {
                at = at.next_multiple_of(8);
                self.starts.push(at);
                last = Some(param);
            }
            let (bits, size) = match w {
                ParamWord::B4(v) => (u64::from(v), 4),
                ParamWord::B8(v) => (v, 8),
            };
            let need = (at + size).div_ceil(8);
            if self.values.len() < need {
                self.values.resize(need, 0);
            }
            for b in 0..size {
                let byte = (bits >> (8 * b)) & 0xff;
                self.values[(at + b) / 8] |= byte << (8 * ((at + b) % 8));
            }
            at += size;
        }
        self.pointers.clear();
        let base = self.values.as_mut_ptr().cast::<u8>();
        // SAFETY: every start is below `8 * values.len()`: each pointer is inside `values`.
        self.pointers.extend(
            self.starts
                .iter()
                .map(|&s| unsafe { base.add(s) }.cast::<c_void>()),
        );
        let grid = threads.div_ceil(BLOCK).max(1);
        // SAFETY: `f` is a loaded entry (the contract); `pointers` has one pointer per
        // parameter, in order, each to the parameter's bytes in `values` (deploy checked the entry's parameter sizes against the module), alive
        // for the call (the driver copies them at launch); what the parameters address
        // meets the entry's contract (this function's contract).
        unsafe {
            result::launch_kernel(
                f,
                (grid, 1, 1),
                (BLOCK, 1, 1),
                0,
                self.cu_stream(),
                &mut self.pointers,
            )
        }
        .map_err(|e| self.fail("launching a kernel", e))
    }

    /// Loads the tiny module whose entry sets a WHILE node's condition from the device. It
    /// calls `cudaGraphSetConditional`, which the driver resolves when it loads the PTX
    /// (no library to link); only if that load fails is the PTX linked with
    /// `libcudadevrt.a`, where one is found. `Err(reason)` when neither works.
    fn set_conditional_fn(&mut self) -> Result<Result<sys::CUfunction, String>, Error> {
        if let Some((_, f)) = &self.set_conditional {
            return Ok(Ok(*f));
        }
        let module = match LoadedModule::load(SET_CONDITIONAL_PTX.as_bytes()) {
            Ok(m) => m,
            Err(plain) => {
                let plain = describe(&plain);
                let Some(lib) = find_cudadevrt() else {
                    return Ok(Err(format!(
                        "loading the condition setter: {plain} (and no libcudadevrt.a to link \
                         it with: EAGLE_CUDADEVRT names one)"
                    )));
                };
                let linked = Linker::new().and_then(|mut l| {
                    l.add_ptx(c"eagle_set_conditional.ptx", SET_CONDITIONAL_PTX)?;
                    l.add_library(&lib)?;
                    l.finish()
                });
                let module = match linked {
                    Ok(image) => LoadedModule::load(&image).map_err(|e| describe(&e)),
                    Err(e) => Err(e.to_string()),
                };
                match module {
                    Ok(m) => m,
                    Err(e) => {
                        return Ok(Err(format!(
                            "loading the condition setter: {plain}; linking it with {}: {e}",
                            lib.display()
                        )));
                    }
                }
            }
        };
        let f = module.function("eagle_set_conditional")?;
        self.set_conditional = Some((module, f));
        Ok(Ok(f))
    }
}

// SAFETY: raw driver handles owned by this backend, usable from any thread with the context
// bound, which every method does before it uses them; the backend is never shared.
unsafe impl Send for CudaBackend {}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = self.bind();
        let _ = self.stream.synchronize();
        self.graphs.clear();
        self.while_graphs.clear();
        self.set_conditional = None;
        for &p in &self.allocations {
            // SAFETY: each allocation is this backend's, freed once, here, after the stream
            // finished every use of it (graphs that record it are gone).
            unsafe {
                let _ = result::free_sync(p);
            }
        }
    }
}

impl Backend for CudaBackend {
    fn load_entries(&mut self, symbols: &[&'static str]) -> Result<(), Error> {
        self.bind()?;
        symbols
            .iter()
            .try_for_each(|s| self.function(s).map(|_| ()))
    }
    fn mem_free(&mut self) -> Option<usize> {
        self.bind().ok()?;
        result::mem_get_info().ok().map(|(free, _total)| free)
    }
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error> {
        self.bind()?;
        // SAFETY: a plain allocation on the bound context (freed when the backend drops).
        let p = unsafe { result::malloc_sync(bytes.max(1)) }
            .map_err(|e| self.fail(&format!("allocating {bytes} B"), e))?;
        self.allocations.push(p);
        // Zeroed on this runner's stream, so before anything the runner queues next (a
        // `cuMemsetD8` on the legacy stream would race with this non-blocking stream).
        // SAFETY: `p` was just allocated with `bytes.max(1)` bytes.
        unsafe { result::memset_d8_async(p, 0, bytes.max(1), self.cu_stream()) }
            .map_err(|e| self.fail("zeroing new memory", e))?;
        Ok(p)
    }
    unsafe fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error> {
        self.bind()?;
        // SAFETY: `dst` lies in an allocation of this backend with room for `src.len()`
        // bytes (the contract); `src` stays borrowed until the synchronize below, which
        // completes the copy.
        unsafe { result::memcpy_htod_async(dst, src, self.cu_stream()) }
            .map_err(|e| self.fail("host-to-device copy", e))?;
        self.synchronize()
    }
    unsafe fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error> {
        self.bind()?;
        // SAFETY: `src` lies in an allocation of this backend holding `dst.len()` bytes
        // from it (the contract); `dst` stays borrowed until the synchronize below, which
        // completes the copy.
        unsafe { result::memcpy_dtoh_async(dst, src, self.cu_stream()) }
            .map_err(|e| self.fail("device-to-host copy", e))?;
        self.synchronize()
    }
    unsafe fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error> {
        self.bind()?;
        // SAFETY: `dst` lies in an allocation of this backend with `bytes` bytes from it
        // (the contract), allocated until the backend drops.
        unsafe { result::memset_d8_async(dst, 0, bytes, self.cu_stream()) }
            .map_err(|e| self.fail("memset", e))
    }
    unsafe fn launch<A: EntryArgs + 'static>(
        &mut self,
        args: A,
        threads: u32,
    ) -> Result<(), Error> {
        self.bind()?;
        let f = self.function(A::SYMBOL)?;
        self.words.clear();
        let words = &mut self.words;
        args.words(&mut |param, w| words.push((param, w)));
        // SAFETY: `f` is `A`'s entry in the team's module, `words` its arguments in order,
        // which meet its contract (this method's contract).
        unsafe { self.launch_words(f, threads) }
    }
    fn begin_capture(&mut self) -> Result<(), Error> {
        self.bind()?;
        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| self.fail("begin capture", e))
    }
    fn end_capture(&mut self) -> Result<GraphId, Error> {
        self.bind()?;
        let g = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .map_err(|e| self.fail("end capture / instantiate", e))?
            .ok_or_else(|| Error::device("the captured graph is empty"))?;
        g.upload().map_err(|e| self.fail("graph upload", e))?;
        self.graphs.push(g);
        Ok(self.graphs.len() - 1)
    }
    unsafe fn while_graph(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error> {
        self.bind()?;
        let v = driver_version()?;
        if v < 12030 {
            return Ok(Err(format!(
                "the driver supports CUDA {}.{}, WHILE nodes need 12.3",
                v / 1000,
                (v % 1000) / 10
            )));
        }
        let set = match self.set_conditional_fn()? {
            Ok(f) => f,
            Err(reason) => return Ok(Err(reason)),
        };
        // Owned from here: every `?` below frees it.
        let mut graph = RawGraph::new()?;
        // SAFETY: driver calls on live handles: `graph` (owned above), the team's context
        // and stream. `params` is zeroed, then filled as a conditional WHILE node's
        // parameters; `phGraph_out` is read only after `cuGraphAddNode` succeeded, which
        // sets it to the node's body graph. The capture into that body is ended on every
        // path before the block is left. The setter launch gets the node's handle and
        // `cond`, a 4-byte allocation of this backend (this method's contract), which it
        // reads.
        unsafe {
            let mut handle: sys::CUgraphConditionalHandle = 0;
            sys::cuGraphConditionalHandleCreate(
                &mut handle,
                graph.handle(),
                self.team.ctx.cu_ctx(),
                1,
                sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
            )
            .result()
            .map_err(|e| dev_err("cuGraphConditionalHandleCreate", e))?;
            let mut params: sys::CUgraphNodeParams = std::mem::zeroed();
            params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
            params.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
                handle,
                type_: sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
                size: 1,
                phGraph_out: std::ptr::null_mut(),
                ctx: self.team.ctx.cu_ctx(),
            };
            let mut node: sys::CUgraphNode = std::ptr::null_mut();
            sys::cuGraphAddNode(&mut node, graph.handle(), std::ptr::null(), 0, &mut params)
                .result()
                .map_err(|e| dev_err("adding the WHILE node", e))?;
            // The body graph belongs to the conditional node (freed with `graph`).
            let body_graph = *params.__bindgen_anon_1.conditional.phGraph_out;
            sys::cuStreamBeginCaptureToGraph(
                self.cu_stream(),
                body_graph,
                std::ptr::null(),
                std::ptr::null(),
                0,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
            .result()
            .map_err(|e| dev_err("capturing the WHILE body", e))?;
            let recorded = body(self).and_then(|_| {
                self.words.clear();
                self.words.push((0, ParamWord::B8(handle)));
                self.words.push((1, ParamWord::B8(cond)));
                self.launch_words(set, 1)
            });
            let ended = result::stream::end_capture(self.cu_stream());
            recorded?;
            ended.map_err(|e| dev_err("ending the WHILE body capture", e))?;
        }
        graph.instantiate()?;
        self.while_graphs.push(graph);
        Ok(Ok(WHILE_BASE + self.while_graphs.len() - 1))
    }
    unsafe fn replay(&mut self, graph: GraphId) -> Result<(), Error> {
        self.bind()?;
        if graph >= WHILE_BASE {
            self.while_graphs[graph - WHILE_BASE]
                .launch(self.cu_stream())
                .map_err(|e| self.team.health.note(e))
        } else {
            self.graphs[graph]
                .launch()
                .map_err(|e| self.fail("graph launch", e))
        }
    }
}

/// Graph ids of WHILE graphs start here.
const WHILE_BASE: GraphId = 1 << 32;

/// Where `libcudadevrt.a` may be: `$EAGLE_CUDADEVRT`, next to the running binary (the GPU
/// bundle puts it there), `$CUDA_HOME/lib64`, `/usr/local/cuda/lib64`.
fn find_cudadevrt() -> Option<std::path::PathBuf> {
    let mut c: Vec<std::path::PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("EAGLE_CUDADEVRT") {
        c.push(p.into());
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(d) = exe.parent()
    {
        c.push(d.join("libcudadevrt.a"));
        c.push(d.join("../libcudadevrt.a"));
    }
    for v in ["CUDA_HOME", "CUDA_PATH"] {
        if let Ok(h) = std::env::var(v) {
            c.push(std::path::Path::new(&h).join("lib64/libcudadevrt.a"));
        }
    }
    c.push("/usr/local/cuda/lib64/libcudadevrt.a".into());
    c.into_iter().find(|p| p.exists())
}

/// The WHILE node's condition setter: reads the `u32` the body's condition kernel
/// (`hawk_while_condition`) stored and hands it to `cudaGraphSetConditional`.
const SET_CONDITIONAL_PTX: &str = r#".version 7.8
.target sm_70
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);
.visible .entry eagle_set_conditional(.param .u64 handle, .param .u64 cond)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [handle];
    ld.param.u64 %rd2, [cond];
    cvta.to.global.u64 %rd3, %rd2;
    ld.global.u32 %r1, [%rd3];
    {
        .param .b64 p0;
        .param .b32 p1;
        st.param.b64 [p0], %rd1;
        st.param.b32 [p1], %r1;
        call.uni cudaGraphSetConditional, (p0, p1);
    }
    ret;
}
"#;

/// Attributes of GPU 0 (for `device_props`).
pub(crate) fn attributes() -> Result<(String, [i32; 7], usize, i32), Error> {
    if let Some(r) = unavailable_reason() {
        return Err(Error::DeviceUnavailable(r));
    }
    let dev = result::device::get(0).map_err(|e| dev_err("cuDeviceGet", e))?;
    let name = result::device::get_name(dev).map_err(|e| dev_err("device name", e))?;
    use sys::CUdevice_attribute::*;
    let mut a = [0i32; 7];
    for (slot, attr) in a.iter_mut().zip([
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
        CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
        CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
    ]) {
        // SAFETY: `dev` is a device handle the driver gave above.
        *slot = unsafe { result::device::get_attribute(dev, attr) }
            .map_err(|e| dev_err("device attribute", e))?;
    }
    // SAFETY: `dev` is a device handle the driver gave above.
    let mem = unsafe { result::device::total_mem(dev) }.map_err(|e| dev_err("total mem", e))?;
    Ok((name, a, mem, driver_version()?))
}
