//! Built-in kernels: the harmonic oscillator, the performance card's workloads (Lorenz,
//! Lorenz-96, Kuramoto, a neural ODE, Kepler, the driven pendulum, geometric Brownian
//! motion and Ornstein-Uhlenbeck), and kernels that call every elementary function (for the
//! PTX and device tests).
//!
//! The oscillators' host loops are compiled here, once (the main job, the guide and most
//! tests run them). The others are `host_code = "where_used"`: a program runs a few of
//! them, and their tables of every loop, compiled here, were about 1,000 CPU-seconds of
//! hawk's build, so each crate that runs one compiles the loops it uses.

pub mod elementary;
pub mod kepler;
pub mod kuramoto;
pub mod lorenz;
pub mod lorenz96;
pub mod neural_ode;
pub mod oscillator;
pub mod pendulum;
pub mod stiff;
pub mod stochastic;

pub use elementary::{
    MathExpLog, MathExpLogF32, MathHyperbolic, MathHyperbolicF32, MathInverse, MathInverseF32,
    MathPow, MathPowF32, MathRounding, MathRoundingF32, MathTrig, MathTrigF32,
};
pub use kepler::{KeplerRk78, KeplerRk78Planes, kepler_rk78};
pub use kuramoto::{KURAMOTO_N, KuramotoRk4, KuramotoRk4Planes, kuramoto_rk4, kuramoto_rk4_rhs};
pub use lorenz::{
    LorenzRk4, LorenzRk4Contracted, LorenzRk4ContractedPlanes, LorenzRk4F32,
    LorenzRk4F32Contracted, LorenzRk4F32ContractedPlanes, LorenzRk4F32Planes, LorenzRk4Planes,
    LorenzRk78, LorenzRk78F32, LorenzRk78F32Planes, LorenzRk78Planes, LorenzVern9,
    LorenzVern9Planes, lorenz_rk4, lorenz_rk4_contracted, lorenz_rk4_f32,
    lorenz_rk4_f32_contracted, lorenz_rk78, lorenz_rk78_f32, lorenz_vern9,
};
pub use lorenz96::{
    LORENZ96_N, Lorenz96Rk4, Lorenz96Rk4F32, Lorenz96Rk4F32Planes, Lorenz96Rk4Planes,
    Lorenz96Tsit5, Lorenz96Tsit5Planes, lorenz96_rk4, lorenz96_rk4_f32, lorenz96_tsit5,
};
pub use neural_ode::{
    NEURAL_ODE_HIDDEN, NEURAL_ODE_N, NEURAL_ODE_WEIGHTS, NeuralOdeRk4, NeuralOdeRk4Planes,
    neural_ode_rk4, neural_ode_rk4_rhs,
};
pub use oscillator::{
    Oscillator, OscillatorContracted, OscillatorContractedPlanes, OscillatorPlanes, oscillator,
    oscillator_contracted,
};
pub use pendulum::{
    PendulumRk4, PendulumRk4F32, PendulumRk4F32Planes, PendulumRk4Planes, pendulum_rk4,
    pendulum_rk4_f32,
};
pub use stiff::{
    HiresRodas5p, HiresRodas5pPlanes, RobertsonRodas5p, RobertsonRodas5pPlanes, hires_rodas5p,
    robertson_rodas5p,
};
pub use stochastic::{GbmEm, GbmEmPlanes, OuSra1, OuSra1Planes, gbm_em, ou_sra1};
