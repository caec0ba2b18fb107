//! The card's figures, drawn with plotters: useful FLOP/s as % of peak by row, and the slots
//! each launch passed over by arm (what compaction saves).

use super::{Arm, Row};
use plotters::prelude::*;
use std::path::Path;

/// Result of drawing a figure.
type Drawn = Result<(), Box<dyn std::error::Error>>;

/// One horizontal bar per row: useful FLOP/s as % of the team's peak (the baseline grey).
pub(super) fn peak_bars(rows: &[Row], path: &Path) -> Drawn {
    let n = rows.len().max(1);
    let root = SVGBackend::new(path, (900, 140 + 22 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = rows.iter().map(|r| r.flops_pct_of_peak).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption("useful FLOP/s, % of the team's peak", ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(330)
        .build_cartesian_2d(0.0..top, 0..n)?;
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} / {}", r.workload, r.arm))
        .collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|i| labels.get(*i).cloned().unwrap_or_default())
        .x_desc("% of peak")
        .draw()?;
    chart.draw_series(rows.iter().enumerate().map(|(i, r)| {
        let color = if r.arm == Arm::RayonScalar.name() {
            RGBColor(150, 150, 150)
        } else {
            RGBColor(31, 119, 180)
        };
        Rectangle::new([(0.0, i), (r.flops_pct_of_peak, i + 1)], color.filled())
    }))?;
    root.present()?;
    Ok(())
}

/// Slots passed over by launch, one line per arm, for the first workload whose samples
/// finish at different steps (compaction bound above 1.05); a note when there is none.
pub(super) fn slots_by_launch(rows: &[Row], path: &Path) -> Drawn {
    let varied = rows
        .iter()
        .find(|r| r.lifetimes.compaction_bound > 1.05)
        .map(|r| r.workload);
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let Some(workload) = varied else {
        root.draw(&Text::new(
            "no workload on this card has samples of very different lifetimes",
            (20, 20),
            ("sans-serif", 16),
        ))?;
        root.present()?;
        return Ok(());
    };
    let arms: Vec<&Row> = rows
        .iter()
        .filter(|r| r.workload == workload && !r.slots_by_launch.is_empty())
        .collect();
    let launches = arms
        .iter()
        .map(|r| r.slots_by_launch.len())
        .max()
        .unwrap_or(1);
    let top = arms
        .iter()
        .flat_map(|r| r.slots_by_launch.iter().copied())
        .max()
        .unwrap_or(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{workload}: slots each launch passed over"),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0..launches, 0..top + top / 20 + 1)?;
    chart
        .configure_mesh()
        .x_desc("launch")
        .y_desc("slots")
        .draw()?;
    for (i, r) in arms.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                r.slots_by_launch.iter().copied().enumerate(),
                color.stroke_width(2),
            ))?
            .label(format!("{} / {}", r.team, r.arm))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
