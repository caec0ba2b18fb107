//! The build / run / transfer figure of "Profile your run", drawn with plotters.

use plotters::prelude::*;
use std::path::Path;

/// Draws one horizontal stacked bar (build, run, transfer; in milliseconds) as an SVG file.
pub fn phases_svg(
    path: &Path,
    title: &str,
    build_s: f64,
    run_s: f64,
    transfer_s: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let segments = [
        ("build", build_s, RGBColor(31, 119, 180)),
        ("run", run_s, RGBColor(255, 127, 14)),
        ("transfer", transfer_s, RGBColor(44, 160, 44)),
    ];
    let total_ms = (build_s + run_s + transfer_s).max(1e-6) * 1e3;
    let root = SVGBackend::new(path, (500, 260)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(35)
        .build_cartesian_2d(0.0..total_ms * 1.05, 0.0..1.0)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_desc("time (ms)")
        .draw()?;
    let mut left = 0.0;
    for (label, width_s, color) in segments {
        let (x0, x1) = (left * 1e3, (left + width_s) * 1e3);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.3), (x1, 0.7)],
                color.filled(),
            )))?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        left += width_s;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
