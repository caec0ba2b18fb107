//! Saves the Lorenz ensemble's trajectories (RK4, dt = 1e-3, 2,000 steps to t = 2, rho in
//! [0, 21]) every 10 steps on the host team, writes them to `target/trajectories/lorenz.npz`
//! (numpy: `d = numpy.load(...)`, `d["x"][j, i]` is sample `i` at point `j`, with `steps`,
//! `status` and each sample's `rho`), and draws x against z for a few samples into
//! `target/trajectories/lorenz.svg` with plotters.
//!
//! `cargo run --release --example trajectories`

use eagle::hawk::builtin::{LorenzRk4, LorenzRk4Planes};
use eagle::{Options, SaveAt, Target};
use plotters::prelude::*;
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n = 4096;
    let rho: Vec<f64> = (0..n).map(|i| 21.0 * i as f64 / (n - 1) as f64).collect();
    let (mut x, mut y, mut z, mut t) = (vec![1.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let planes = LorenzRk4Planes {
        rho: &rho,
        sigma: 10.0,
        beta: 8.0 / 3.0,
        dt: 1e-3,
        t_end: 2.0,
        x: &mut x,
        y: &mut y,
        z: &mut z,
        t: &mut t,
    };
    let deployed = eagle::deploy(LorenzRk4, Target::Host(Default::default()))?;
    let options = Options::new(2000).save(SaveAt::every(10));
    let mut runner = eagle::until_done(&deployed, options, planes)?;
    let t0 = std::time::Instant::now();
    runner.run()?;
    let secs = t0.elapsed().as_secs_f64();
    runner.to_host()?;
    let traj = runner.trajectory()?.expect("saving");
    println!(
        "{} samples x {} points x {:?}: {:.1} MB in {:.3} s",
        traj.samples(),
        traj.points(),
        traj.plane_names(),
        traj.bytes() as f64 / 1e6,
        secs
    );

    let dir = Path::new("target/trajectories");
    std::fs::create_dir_all(dir)?;
    traj.write_npz(dir.join("lorenz.npz"), &[("rho", &rho)])?;

    let svg = dir.join("lorenz.svg");
    let root = SVGBackend::new(&svg, (900, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Lorenz, RK4: x against z, saved every 10 steps",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(-20.0..20.0, 0.0..40.0)?;
    chart.configure_mesh().x_desc("x").y_desc("z").draw()?;
    for (k, &i) in [n / 4, n / 2, 3 * n / 4, n - 1].iter().enumerate() {
        let (xs, zs) = (traj.series(i, "x")?, traj.series(i, "z")?);
        let color = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(
                xs.into_iter().zip(zs),
                color.stroke_width(2),
            ))?
            .label(format!("rho = {:.1}", rho[i]))
            .legend(move |(a, b)| PathElement::new(vec![(a, b), (a + 20, b)], color));
    }
    chart.configure_series_labels().border_style(BLACK).draw()?;
    root.present()?;
    println!(
        "wrote {} and {}",
        dir.join("lorenz.npz").display(),
        svg.display()
    );
    Ok(())
}
