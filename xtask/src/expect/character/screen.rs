//! The character example's screenshots against the host's rendering of the frame each one shows.
use super::*;
/// Keeps every triangle, in the order the renderer produced them.
#[derive(Default)]
pub(super) struct Collect(pub(super) Vec<DrawnTriangle>);
impl TriangleSink for Collect {
    fn add(&mut self, t: &DrawnTriangle) -> bool {
        self.0.push(*t);
        true
    }
}

/// A pixel box, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PixelBox {
    pub min: (i32, i32),
    pub max: (i32, i32),
}

impl PixelBox {
    fn union(a: Option<PixelBox>, b: PixelBox) -> PixelBox {
        match a {
            None => b,
            Some(a) => PixelBox { min: (a.min.0.min(b.min.0), a.min.1.min(b.min.1)), max: (a.max.0.max(b.max.0), a.max.1.max(b.max.1)) },
        }
    }
    fn within(&self, o: &PixelBox, tolerance: i32) -> bool {
        (self.min.0 - o.min.0).abs() <= tolerance
            && (self.min.1 - o.min.1).abs() <= tolerance
            && (self.max.0 - o.max.0).abs() <= tolerance
            && (self.max.1 - o.max.1).abs() <= tolerance
    }
}

/// What the host renders at `frame`: per instance the outcome and the drawn triangles.
pub(super) struct HostFrame {
    pub(super) outcomes: Vec<Outcome>,
    pub(super) triangles: Vec<Vec<DrawnTriangle>>,
}

pub(super) fn host_frame(models: scene::Models, frame: u32) -> Result<HostFrame> {
    let mut s = scene::Scene::new(models).map_err(|e| anyhow::anyhow!("scene: {e:?}"))?;
    for _ in 0..frame {
        s.step();
    }
    let mut scratch = Box::<SceneScratch>::new(SceneScratch::new());
    let mut gte = host_gte();
    let mut sinks: Vec<Collect> = (0..scene::INSTANCES).map(|_| Collect::default()).collect();
    // One sink per instance: render them one by one through the scene's own loop order.
    let mut all = Collect::default();
    let (outcomes, _) = s.render(&s.camera(), &mut gte, &mut scratch, &mut all, &|c: &Collect| c.0.len(), &mut |_, _| {});
    let mut outcomes_ok = Vec::new();
    let mut at = 0;
    for (i, o) in outcomes.iter().enumerate() {
        let o = o.map_err(|e| anyhow::anyhow!("host render of instance {i}: {e:?}"))?;
        if let Outcome::Drawn(stats) = o {
            let n = stats.drawn as usize;
            sinks[i].0.extend_from_slice(&all.0[at..at + n]);
            at += n;
        }
        outcomes_ok.push(o);
    }
    Ok(HostFrame { outcomes: outcomes_ok, triangles: sinks.into_iter().map(|c| c.0).collect() })
}

/// The pixels the GPU fills for these triangles: vertex extents, right and bottom edges exclusive,
/// clipped to the screen below the frame code.
pub(super) fn drawn_box(triangles: &[DrawnTriangle]) -> Option<PixelBox> {
    let mut b: Option<PixelBox> = None;
    for t in triangles {
        let xs = t.xy.map(|p| p.x as i32);
        let ys = t.xy.map(|p| p.y as i32);
        let tri = PixelBox {
            min: (*xs.iter().min().unwrap(), *ys.iter().min().unwrap()),
            max: (*xs.iter().max().unwrap() - 1, *ys.iter().max().unwrap() - 1),
        };
        b = Some(PixelBox::union(b, tri));
    }
    let top = scene::FRAME_CODE_BLOCK.1 as i32;
    b.map(|b| PixelBox {
        min: (b.min.0.max(0), b.min.1.max(top)),
        max: (b.max.0.min(scene::SCREEN.0 as i32 - 1), b.max.1.min(scene::SCREEN.1 as i32 - 1)),
    })
}

pub(super) fn pixel(shot: &Screenshot, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * shot.width + x) * 3) as usize;
    [shot.rgb[i], shot.rgb[i + 1], shot.rgb[i + 2]]
}

/// The frame number drawn on the top rows of a screenshot.
pub(super) fn frame_code(shot: &Screenshot) -> Result<u32> {
    let (w, h) = scene::FRAME_CODE_BLOCK;
    ensure!(shot.width as u16 >= w * scene::FRAME_CODE_BITS as u16 && shot.height as u16 > h, "screenshot too small for the frame code");
    let mut frame = 0;
    for bit in 0..scene::FRAME_CODE_BITS {
        let p = pixel(shot, bit * w as u32 + w as u32 / 2, h as u32 / 2);
        let sum: u32 = p.iter().map(|&c| c as u32).sum();
        match sum {
            s if s >= 3 * 200 => frame |= 1 << bit,
            s if s <= 3 * 40 => {}
            _ => bail!("no frame code at the top left: block {bit} is {p:?}, neither black nor white"),
        }
    }
    Ok(frame)
}

/// The box of every pixel that is not the background (the most common colour), below the frame code.
/// A column or row of one uniform colour across the whole picture is the display's border (mednafen
/// shows the 320-pixel area one pixel late, with a black first column), not part of the scene; border
/// columns at the left edge shift the scene right, so the box is moved back by their number.
pub(super) fn silhouette_box(shot: &Screenshot) -> Option<PixelBox> {
    let top = scene::FRAME_CODE_BLOCK.1 as u32;
    let mut counts = std::collections::HashMap::new();
    for y in top..shot.height {
        for x in 0..shot.width {
            *counts.entry(pixel(shot, x, y)).or_insert(0usize) += 1;
        }
    }
    let background = counts.into_iter().max_by_key(|&(_, n)| n)?.0;
    let border_column = |x: u32| {
        let c = pixel(shot, x, top);
        c != background && (top..shot.height).all(|y| pixel(shot, x, y) == c)
    };
    let border_row = |y: u32| {
        let c = pixel(shot, 0, y);
        c != background && (0..shot.width).all(|x| pixel(shot, x, y) == c)
    };
    let columns: Vec<bool> = (0..shot.width).map(border_column).collect();
    let rows: Vec<bool> = (0..shot.height).map(|y| y >= top && border_row(y)).collect();
    let mut b: Option<PixelBox> = None;
    for y in top..shot.height {
        for x in 0..shot.width {
            if !columns[x as usize] && !rows[y as usize] && pixel(shot, x, y) != background {
                b = Some(PixelBox::union(b, PixelBox { min: (x as i32, y as i32), max: (x as i32, y as i32) }));
            }
        }
    }
    let shift = columns.iter().take_while(|&&border| border).count() as i32;
    b.map(|b| PixelBox { min: (b.min.0 - shift, b.min.1), max: (b.max.0 - shift, b.max.1) })
}

/// (a) The screenshots differ where the characters are; (d) each silhouette's box matches the host's
/// projected box within 1 pixel.
pub(super) fn silhouette_checks(models: scene::Models, shots: &[Screenshot]) -> Vec<Check> {
    let mut checks = Vec::new();
    let mut host_boxes = Vec::new();
    for shot in shots {
        let name = format!("character.silhouette.frame{}", shot.frame);
        let result = (|| -> Result<(PixelBox, String)> {
            ensure!(
                (shot.width, shot.height) == (scene::SCREEN.0 as u32, scene::SCREEN.1 as u32),
                "screenshot is {}x{}, expected the 320x240 display",
                shot.width,
                shot.height
            );
            let frame = frame_code(shot)?;
            // The record holds the textured instance's packets of the frames below TEXTURED_FRAMES.
            ensure!(frame < scene::TEXTURED_FRAMES, "program frame {frame}: past the {} frames whose textured packets the record holds", scene::TEXTURED_FRAMES);
            let host = host_frame(models, frame)?;
            let all: Vec<DrawnTriangle> = host.triangles.concat();
            let expected = drawn_box(&all).context("the host draws nothing at this frame")?;
            let found = silhouette_box(shot).context("the screenshot is one flat colour")?;
            let detail = format!("program frame {frame}: host box {expected:?}, screenshot box {found:?}");
            ensure!(found.within(&expected, 1), "{detail}");
            Ok((expected, detail))
        })();
        match result {
            Ok((b, detail)) => {
                host_boxes.push(b);
                checks.push(Check::new(name, true, detail));
            }
            Err(e) => checks.push(Check::new(name, false, format!("{e:#}"))),
        }
    }
    if let (Some(first), Some(last), true) = (shots.first(), shots.last(), host_boxes.len() == shots.len() && shots.len() >= 2) {
        let region = host_boxes.iter().fold(None, |acc, b| Some(PixelBox::union(acc, *b))).expect("two boxes");
        let mut changed = 0;
        for y in region.min.1..=region.max.1 {
            for x in region.min.0..=region.max.0 {
                if pixel(first, x as u32, y as u32) != pixel(last, x as u32, y as u32) {
                    changed += 1;
                }
            }
        }
        checks.push(Check::new(
            "character.frames_differ_at_characters",
            changed >= MIN_CHANGED_PIXELS,
            format!("{changed} pixels differ inside {region:?} (at least {MIN_CHANGED_PIXELS} wanted)"),
        ));
    } else {
        checks.push(Check::new("character.frames_differ_at_characters", false, "needs two screenshots with a readable frame code"));
    }
    checks
}
