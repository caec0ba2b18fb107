//! Graphs built at the driver level (the WHILE loop): owned, so that the graph and its
//! executable are destroyed on every path, an error halfway through building included.

use super::error::dev_err;
use crate::error::Error;
use cudarc::driver::{result, sys};

/// A driver graph and, once instantiated, its executable.
pub(super) struct RawGraph {
    graph: sys::CUgraph,
    exec: Option<sys::CUgraphExec>,
}

impl RawGraph {
    /// An empty graph.
    pub fn new() -> Result<Self, Error> {
        let mut graph: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: `graph` is a valid place for the new handle; flags must be 0.
        unsafe { sys::cuGraphCreate(&mut graph, 0) }
            .result()
            .map_err(|e| dev_err("cuGraphCreate", e))?;
        Ok(RawGraph { graph, exec: None })
    }

    /// The graph's handle, for adding nodes.
    pub fn handle(&self) -> sys::CUgraph {
        self.graph
    }

    /// Instantiates the graph (once).
    pub fn instantiate(&mut self) -> Result<(), Error> {
        if self.exec.is_none() {
            // SAFETY: `self.graph` is a live graph this value owns.
            let exec =
                unsafe { result::graph::instantiate(self.graph, sys::CUgraphInstantiate_flags(0)) }
                    .map_err(|e| dev_err("instantiating the WHILE graph", e))?;
            self.exec = Some(exec);
        }
        Ok(())
    }

    /// Queues a launch of the instantiated graph on `stream`.
    pub fn launch(&self, stream: sys::CUstream) -> Result<(), Error> {
        let exec = self
            .exec
            .ok_or_else(|| Error::device("launching a WHILE graph before instantiating it"))?;
        // SAFETY: `exec` is this graph's live executable; `stream` is the caller's live
        // stream on the same context.
        unsafe { result::graph::launch(exec, stream) }.map_err(|e| dev_err("WHILE graph launch", e))
    }
}

impl Drop for RawGraph {
    fn drop(&mut self) {
        // SAFETY: the executable and the graph are owned by this value and destroyed once,
        // here; nothing uses them afterwards.
        unsafe {
            if let Some(e) = self.exec.take() {
                let _ = result::graph::exec_destroy(e);
            }
            let _ = result::graph::destroy(self.graph);
        }
    }
}
