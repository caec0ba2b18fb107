//! The CUDA backend: cudarc's driver API, loaded at run time (`dynamic-loading`), so the
//! project builds and runs without CUDA; nothing here is touched unless a driver is present.
//!
//! Untested on a GPU in this repository's CI: `scripts/gpu-check.sh` runs it on one.

use super::cache::DeviceIdentity;
use super::startup::{self, Module, ModuleLoader, Startup};
use super::{Arg, BLOCK, Backend, DevPtr, Entry, GraphId};
use crate::error::Error;
use cudarc::driver::{CudaContext, CudaGraph, CudaStream, DriverError, result, sys};
use hawk::Kernel;
use hawk_host::HostReal;
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::{Arc, Mutex};

/// A driver error as a typed [`Error`]: out of memory, a kernel trap (the context is
/// unusable afterwards) and a lost context get their own variants; the rest is `Device`.
fn dev_err(what: &str, e: DriverError) -> Error {
    use sys::cudaError_enum as R;
    let msg = format!("{what}: {e:?}");
    match e.0 {
        R::CUDA_ERROR_OUT_OF_MEMORY => Error::DeviceOutOfMemory(msg),
        R::CUDA_ERROR_ILLEGAL_ADDRESS
        | R::CUDA_ERROR_LAUNCH_FAILED
        | R::CUDA_ERROR_ASSERT
        | R::CUDA_ERROR_HARDWARE_STACK_ERROR
        | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
        | R::CUDA_ERROR_MISALIGNED_ADDRESS
        | R::CUDA_ERROR_INVALID_PC
        | R::CUDA_ERROR_LAUNCH_TIMEOUT => Error::KernelTrap(msg),
        R::CUDA_ERROR_CONTEXT_IS_DESTROYED
        | R::CUDA_ERROR_INVALID_CONTEXT
        | R::CUDA_ERROR_DEINITIALIZED
        | R::CUDA_ERROR_DEVICE_UNAVAILABLE
        | R::CUDA_ERROR_ECC_UNCORRECTABLE => Error::ContextLost(msg),
        _ => Error::Device(msg),
    }
}

/// Why no CUDA device can be used here, or `None` when one can.
pub(crate) fn unavailable_reason() -> Option<String> {
    if !unsafe { sys::is_culib_present() } {
        return Some("no CUDA driver (libcuda) found on this machine".into());
    }
    if let Err(e) = result::init() {
        return Some(format!("the CUDA driver failed to initialise: {e:?}"));
    }
    match result::device::get_count() {
        Ok(0) => Some("the CUDA driver reports no GPU".into()),
        Ok(_) => None,
        Err(e) => Some(format!("the CUDA driver could not count GPUs: {e:?}")),
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
    unsafe { sys::cuDriverGetVersion(&mut v) }
        .result()
        .map_err(|e| dev_err("cuDriverGetVersion", e))?;
    Ok(v)
}

/// A CUDA GPU with the kernels' module loaded: context, stream and functions.
pub struct CudaTeam {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    module: sys::CUmodule,
    functions: Mutex<HashMap<String, usize>>,
    name: String,
    startup: Startup,
}

// The raw module and function handles are plain driver handles, usable from any thread
// with the context bound.
unsafe impl Send for CudaTeam {}
unsafe impl Sync for CudaTeam {}

impl CudaTeam {
    /// Opens GPU 0 and obtains `module` (the kernels' module): the built-in cubin when its
    /// architecture is the GPU's, else a cached or freshly JIT-compiled image of the PTX
    /// (see `startup::obtain`). Call only when [`unavailable_reason`] is `None`.
    pub(crate) fn new(module: &Module<'_>) -> Result<Self, Error> {
        Self::new_on(0, module)
    }

    /// [`CudaTeam::new`] on GPU `ordinal` (0-based, as the driver counts them).
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
        let ctx = CudaContext::new(ordinal).map_err(|e| dev_err("creating a CUDA context", e))?;
        // Raw allocations only, but graphs must not see cudarc's event bookkeeping.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx
            .new_stream()
            .map_err(|e| dev_err("creating a stream", e))?;
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
        let (module, startup) = startup::obtain(&mut loader, module)?;
        Ok(CudaTeam {
            ctx,
            stream,
            module,
            functions: Mutex::new(HashMap::new()),
            name,
            startup,
        })
    }

    /// How the module was obtained (built-in cubin, cache hit, JIT) and what it cost.
    pub fn startup(&self) -> &Startup {
        &self.startup
    }

    /// The GPU's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn function(&self, symbol: &str) -> Result<sys::CUfunction, Error> {
        let mut f = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&p) = f.get(symbol) {
            return Ok(p as sys::CUfunction);
        }
        let c = CString::new(symbol).expect("symbols have no NUL");
        let func = unsafe { result::module::get_function(self.module, c) }
            .map_err(|e| dev_err(&format!("finding entry `{symbol}` in the PTX module"), e))?;
        f.insert(symbol.to_owned(), func as usize);
        Ok(func)
    }
}

/// Loads images and JIT-compiles PTX on the current context, for `startup::obtain`.
struct CudaLoader {
    id: DeviceIdentity,
}

impl ModuleLoader for CudaLoader {
    type Handle = sys::CUmodule;
    fn identity(&self) -> &DeviceIdentity {
        &self.id
    }
    fn load_image(&mut self, image: &[u8]) -> Result<sys::CUmodule, String> {
        load_image(image).map_err(|e| format!("{e:?}"))
    }
    fn jit(&mut self, ptx: &str) -> Result<(Vec<u8>, sys::CUmodule), Error> {
        let image = jit_ptx(ptx)?;
        let module =
            load_image(&image).map_err(|e| dev_err("loading the JIT-compiled module", e))?;
        Ok((image, module))
    }
}

/// `cuModuleLoadData` on a copy of `image` that is 8-byte aligned and followed by zeros
/// (the call takes no length; an image that is not ELF is read as NUL-terminated text).
fn load_image(image: &[u8]) -> Result<sys::CUmodule, DriverError> {
    let mut buf = vec![0u64; image.len().div_ceil(8) + 1];
    unsafe {
        std::ptr::copy_nonoverlapping(image.as_ptr(), buf.as_mut_ptr().cast::<u8>(), image.len());
        result::module::load_data(buf.as_ptr().cast())
    }
}

/// JIT-compiles `ptx` for the current context's GPU with the driver's linker
/// (`cuLinkCreate`, `cuLinkAddData` as PTX, `cuLinkComplete`) and returns the cubin.
fn jit_ptx(ptx: &str) -> Result<Vec<u8>, Error> {
    let src = CString::new(ptx).map_err(|_| Error::Device("PTX contains a NUL".into()))?;
    let mut log = vec![0u8; 16 << 10];
    let mut opts = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    unsafe {
        let mut state: sys::CUlinkState = std::ptr::null_mut();
        sys::cuLinkCreate_v2(2, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state)
            .result()
            .map_err(|e| dev_err("cuLinkCreate", e))?;
        let added = sys::cuLinkAddData_v2(
            state,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            src.as_ptr() as *mut c_void,
            src.as_bytes_with_nul().len(),
            c"hawk.ptx".as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
        .result();
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        let image = added
            .and_then(|_| sys::cuLinkComplete(state, &mut cubin, &mut size).result())
            .map(|_| std::slice::from_raw_parts(cubin as *const u8, size).to_vec());
        // The cubin belongs to the link state: copied above, before it is destroyed.
        sys::cuLinkDestroy(state);
        image.map_err(|e| {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let msg = String::from_utf8_lossy(&log[..end]);
            dev_err(&format!("JIT-compiling the PTX ({})", msg.trim()), e)
        })
    }
}

/// The CUDA backend of one runner: its allocations and graphs.
pub(crate) struct CudaBackend {
    team: Arc<CudaTeam>,
    allocations: Vec<DevPtr>,
    graphs: Vec<CudaGraph>,
    /// WHILE graphs (ids from `WHILE_BASE` on), built at the driver level.
    raw_graphs: Vec<(sys::CUgraph, sys::CUgraphExec)>,
    /// The linked condition-setter module and its entry, once loaded.
    set_conditional: Option<(sys::CUmodule, sys::CUfunction)>,
}

impl CudaBackend {
    pub fn new(team: Arc<CudaTeam>) -> Result<Self, Error> {
        team.ctx
            .bind_to_thread()
            .map_err(|e| dev_err("binding the context", e))?;
        Ok(CudaBackend {
            team,
            allocations: Vec::new(),
            graphs: Vec::new(),
            raw_graphs: Vec::new(),
            set_conditional: None,
        })
    }
    fn cu_stream(&self) -> sys::CUstream {
        self.team.stream.cu_stream()
    }
    /// Makes the team's context current on the calling thread (a runner may move threads).
    fn bind(&self) -> Result<(), Error> {
        self.team
            .ctx
            .bind_to_thread()
            .map_err(|e| dev_err("binding the context", e))
    }
    fn launch_raw(&self, f: sys::CUfunction, threads: u32, args: &[Arg]) -> Result<(), Error> {
        let mut vals: Vec<u64> = args.iter().map(|a| a.as_u64()).collect();
        let mut b4: Vec<u32> = args
            .iter()
            .map(|a| match a {
                Arg::B4(v) => *v,
                Arg::B8(_) => 0,
            })
            .collect();
        let mut params: Vec<*mut c_void> = args
            .iter()
            .enumerate()
            .map(|(j, a)| match a {
                Arg::B4(_) => (&mut b4[j] as *mut u32).cast(),
                Arg::B8(_) => (&mut vals[j] as *mut u64).cast(),
            })
            .collect();
        let grid = threads.div_ceil(BLOCK).max(1);
        unsafe {
            result::launch_kernel(
                f,
                (grid, 1, 1),
                (BLOCK, 1, 1),
                0,
                self.cu_stream(),
                &mut params,
            )
        }
        .map_err(|e| dev_err("launching a kernel", e))
    }

    /// Loads the tiny module whose entry sets a WHILE node's condition from the device. It
    /// calls `cudaGraphSetConditional`, which lives in `libcudadevrt.a`, so it is linked at
    /// run time; `Err(reason)` when that library cannot be found.
    fn set_conditional_fn(&mut self) -> Result<Result<sys::CUfunction, String>, Error> {
        if let Some((_, f)) = self.set_conditional {
            return Ok(Ok(f));
        }
        let Some(lib) = find_cudadevrt() else {
            return Ok(Err(
                "libcudadevrt.a not found (set EAGLE_CUDADEVRT to its path)".into(),
            ));
        };
        unsafe {
            let mut state: sys::CUlinkState = std::ptr::null_mut();
            sys::cuLinkCreate_v2(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut state)
                .result()
                .map_err(|e| dev_err("cuLinkCreate", e))?;
            let src = CString::new(SET_CONDITIONAL_PTX).expect("no NUL");
            let name = CString::new("eagle_set_conditional.ptx").expect("no NUL");
            let lib_c = CString::new(lib.to_string_lossy().as_bytes()).expect("no NUL");
            let linked = sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                src.as_ptr() as *mut c_void,
                SET_CONDITIONAL_PTX.len() + 1,
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
            .result()
            .and_then(|_| {
                sys::cuLinkAddFile_v2(
                    state,
                    sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                    lib_c.as_ptr(),
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
                .result()
            });
            let mut cubin: *mut c_void = std::ptr::null_mut();
            let mut size = 0usize;
            let linked =
                linked.and_then(|_| sys::cuLinkComplete(state, &mut cubin, &mut size).result());
            let module = linked.and_then(|_| result::module::load_data(cubin));
            sys::cuLinkDestroy(state);
            let module = match module {
                Ok(m) => m,
                Err(e) => return Ok(Err(format!("linking with {}: {e:?}", lib.display()))),
            };
            let f = result::module::get_function(
                module,
                CString::new("eagle_set_conditional").expect("no NUL"),
            )
            .map_err(|e| dev_err("eagle_set_conditional", e))?;
            self.set_conditional = Some((module, f));
            Ok(Ok(f))
        }
    }
}

// Raw driver handles owned by this backend; the context is bound before each use.
unsafe impl Send for CudaBackend {}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = self.team.stream.synchronize();
        self.graphs.clear();
        for &(g, e) in &self.raw_graphs {
            unsafe {
                let _ = result::graph::exec_destroy(e);
                let _ = result::graph::destroy(g);
            }
        }
        for &p in &self.allocations {
            unsafe {
                let _ = result::free_sync(p);
            }
        }
        if let Some((m, _)) = self.set_conditional {
            unsafe {
                let _ = result::module::unload(m);
            }
        }
    }
}

impl Backend for CudaBackend {
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Error> {
        self.bind()?;
        let p = unsafe { result::malloc_sync(bytes.max(1)) }
            .map_err(|e| dev_err(&format!("allocating {bytes} B"), e))?;
        self.allocations.push(p);
        unsafe { result::memset_d8_sync(p, 0, bytes.max(1)) }.map_err(|e| dev_err("zeroing", e))?;
        Ok(p)
    }
    fn upload(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), Error> {
        self.bind()?;
        unsafe { result::memcpy_htod_async(dst, src, self.cu_stream()) }
            .map_err(|e| dev_err("host-to-device copy", e))?;
        self.team
            .stream
            .synchronize()
            .map_err(|e| dev_err("synchronizing", e))
    }
    fn download(&mut self, src: DevPtr, dst: &mut [u8]) -> Result<(), Error> {
        self.bind()?;
        unsafe { result::memcpy_dtoh_async(dst, src, self.cu_stream()) }
            .map_err(|e| dev_err("device-to-host copy", e))?;
        self.team
            .stream
            .synchronize()
            .map_err(|e| dev_err("synchronizing", e))
    }
    fn zero(&mut self, dst: DevPtr, bytes: usize) -> Result<(), Error> {
        unsafe { result::memset_d8_async(dst, 0, bytes, self.cu_stream()) }
            .map_err(|e| dev_err("memset", e))
    }
    fn launch<K: Kernel>(&mut self, entry: Entry, threads: u32, args: &[Arg]) -> Result<(), Error>
    where
        K::Real: HostReal,
    {
        let f = self.team.function(&entry.symbol::<K>())?;
        self.launch_raw(f, threads, args)
    }
    fn begin_capture(&mut self) -> Result<(), Error> {
        self.team
            .stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| dev_err("begin capture", e))
    }
    fn end_capture(&mut self) -> Result<GraphId, Error> {
        let g = self
            .team
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .map_err(|e| dev_err("end capture / instantiate", e))?
            .ok_or_else(|| Error::Device("the captured graph is empty".into()))?;
        g.upload().map_err(|e| dev_err("graph upload", e))?;
        self.graphs.push(g);
        Ok(self.graphs.len() - 1)
    }
    fn while_graph<K: Kernel>(
        &mut self,
        cond: DevPtr,
        body: &mut dyn FnMut(&mut Self) -> Result<(), Error>,
    ) -> Result<Result<GraphId, String>, Error>
    where
        K::Real: HostReal,
    {
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
        unsafe {
            let mut graph: sys::CUgraph = std::ptr::null_mut();
            sys::cuGraphCreate(&mut graph, 0)
                .result()
                .map_err(|e| dev_err("cuGraphCreate", e))?;
            let mut handle: sys::CUgraphConditionalHandle = 0;
            sys::cuGraphConditionalHandleCreate(
                &mut handle,
                graph,
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
            sys::cuGraphAddNode(&mut node, graph, std::ptr::null(), 0, &mut params)
                .result()
                .map_err(|e| dev_err("adding the WHILE node", e))?;
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
            let recorded = body(self)
                .and_then(|_| self.launch_raw(set, 1, &[Arg::B8(handle), Arg::ptr(cond)]));
            let ended = result::stream::end_capture(self.cu_stream());
            recorded?;
            ended.map_err(|e| dev_err("ending the WHILE body capture", e))?;
            let exec = result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0))
                .map_err(|e| dev_err("instantiating the WHILE graph", e))?;
            self.raw_graphs.push((graph, exec));
            Ok(Ok(WHILE_BASE + self.raw_graphs.len() - 1))
        }
    }
    fn replay(&mut self, graph: GraphId) -> Result<(), Error> {
        self.bind()?;
        if graph >= WHILE_BASE {
            let (_, exec) = self.raw_graphs[graph - WHILE_BASE];
            unsafe { result::graph::launch(exec, self.cu_stream()) }
                .map_err(|e| dev_err("WHILE graph launch", e))
        } else {
            self.graphs[graph]
                .launch()
                .map_err(|e| dev_err("graph launch", e))
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
        *slot = unsafe { result::device::get_attribute(dev, attr) }
            .map_err(|e| dev_err("device attribute", e))?;
    }
    let mem = unsafe { result::device::total_mem(dev) }.map_err(|e| dev_err("total mem", e))?;
    Ok((name, a, mem, driver_version()?))
}
