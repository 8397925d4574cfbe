//! The local web viewer: one self-contained page (built into the binary) and an API that hands it the
//! console's picture of a frame, painted here by the same stages and rasteriser as `preview --out`
//! (textures through the VRAM model, modulation, Gouraud, 15-bit colour), and the frame's triangles
//! and joints for the page's overlay.
//!
//! Routes (GET only, localhost only):
//! - `/`: the viewer page;
//! - `/api/info`: source, clips (name, frames, rate, event markers), storage modes, bone names, the
//!   light settings ([`LIGHT_SETTINGS`]: name, label, initial state) and which storage modes are
//!   drawn lit when the light is on (tables with normals);
//! - `/api/picture?clip=I&frame=F&storage=rigid-gte|baked-vertices&yaw=D&pitch=D&zoom=Z&light=0|1`: the
//!   console's picture of the frame as a PNG, byte for byte what `preview --out` writes for that frame
//!   (`--light` for `light=1`; no skeleton: the page draws it);
//! - `/api/frame?` the same query: the frame's triangles in draw order (`[x0, y0, x1, y1, x2, y2, r, g,
//!   b, bone, index]`, the material colour as the GPU stores it, `bone` the rigid bone of the first
//!   vertex or -1 in baked storage, `index` the triangle's index in the tables drawn), the bone joints
//!   (`[x, y, parent]`, parent -1 for a root), the screen box of the triangles and whether it is lit.
//!
//! A bad query is answered 400 with `{"error": "..."}` saying what is wrong.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::camera::{Framing, Orbit, SCREEN_HEIGHT, SCREEN_WIDTH};
use super::raster::vram_colour;
use super::shot::{BACKGROUND, BONE_LINE, JOINT_DOT};
use super::subject::{storage_name, Subject};
use super::{picture, render_frames, FrameOptions, LightOptions};
use crate::cli::CliError;
use crate::compile::StorageMode;

/// The viewer page.
pub const PAGE: &str = include_str!("../../assets/viewer/index.html");
/// Longest request head accepted (the API's requests are a few hundred bytes).
const MAX_REQUEST_HEAD: usize = 8 * 1024;
/// An idle connection (browsers open spare ones) is dropped after this.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once; more are refused (503) rather than given a thread each.
const MAX_CONNECTIONS: usize = 32;

/// A light setting the page toggles: its query parameter (`0|1`, off when absent), the page's label,
/// and the field of [`LightOptions`] it sets.
pub struct LightSetting {
    pub name: &'static str,
    pub label: &'static str,
    pub field: fn(&mut LightOptions) -> &mut bool,
}

/// Every light setting of the viewer, in the order the page shows them.
pub const LIGHT_SETTINGS: &[LightSetting] = &[
    LightSetting {
        name: "light",
        label: "Light",
        field: |o| &mut o.light,
    },
    LightSetting {
        name: "fog",
        label: "Fog",
        field: |o| &mut o.fog,
    },
];

/// What the viewer shows: the subject (loaded with [`Normals::Both`](super::subject::Normals), so
/// that the light toggle draws each frame as `preview` would with and without `--light`) and the
/// light settings the page starts with.
pub struct Viewer {
    pub subject: Subject,
    pub initial_light: LightOptions,
}

/// Binds `127.0.0.1:port` (0: any free port) or says clearly why not.
pub fn bind(port: u16) -> Result<TcpListener, CliError> {
    TcpListener::bind(("127.0.0.1", port)).map_err(|e| {
        let why = if e.kind() == std::io::ErrorKind::AddrInUse {
            "the port is already in use (choose another with --port)".to_string()
        } else {
            e.to_string()
        };
        CliError::invalid(format!("cannot listen on 127.0.0.1:{port}: {why}"))
    })
}

/// Serves until the process is stopped; one thread per connection, at most [`MAX_CONNECTIONS`].
pub fn run(viewer: Viewer, listener: TcpListener) -> Result<(), CliError> {
    let viewer = Arc::new(viewer);
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            let _ = write_response(&mut stream, &Response::error(503, "too many connections"));
            continue;
        }
        let (viewer, active) = (Arc::clone(&viewer), Arc::clone(&active));
        std::thread::spawn(move || {
            let _ = handle(&viewer, stream);
            active.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// A response: status, content type, body.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    fn json(status: u16, v: &Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: v.to_string().into_bytes(),
        }
    }
    fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(status, &json!({ "error": message.into() }))
    }
}

fn handle(viewer: &Viewer, stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?).take(MAX_REQUEST_HEAD as u64);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers: the API needs none of them.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let response = match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => respond(viewer, target),
        (Some(_), Some(_)) => Response::error(405, "only GET is served"),
        _ => Response::error(400, "malformed request line"),
    };
    let mut out = stream;
    write_response(&mut out, &response)
}

fn write_response(out: &mut TcpStream, response: &Response) -> std::io::Result<()> {
    let reason = match response.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    };
    write!(
        out,
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    )?;
    out.write_all(&response.body)?;
    out.flush()
}

/// Answers one GET `target` (path and query).
pub fn respond(viewer: &Viewer, target: &str) -> Response {
    let subject = &viewer.subject;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let answer = match path {
        "/" | "/index.html" => {
            return Response {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: PAGE.as_bytes().to_vec(),
            }
        }
        "/api/info" => return Response::json(200, &info(viewer)),
        "/api/frame" => frame(subject, query).map(|v| Response::json(200, &v)),
        "/api/picture" => console_png(subject, query).map(|body| Response {
            status: 200,
            content_type: "image/png",
            body,
        }),
        _ => return Response::error(404, format!("no such page: {path}")),
    };
    answer.unwrap_or_else(|e| Response::error(400, e))
}

fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn info(viewer: &Viewer) -> Value {
    let subject = &viewer.subject;
    let clips: Vec<Value> = subject
        .clips
        .iter()
        .map(|c| {
            let events: Vec<Value> = c
                .events
                .iter()
                .map(|(f, n)| json!({ "frame": f, "name": n }))
                .collect();
            json!({ "name": c.name, "frames": c.frames, "rate": c.rate, "events": events })
        })
        .collect();
    let bones: Vec<&str> = subject
        .character
        .as_ref()
        .map(|c| c.bones.iter().map(|b| b.name.as_str()).collect())
        .unwrap_or_default();
    let light: Vec<Value> = LIGHT_SETTINGS
        .iter()
        .map(|s| {
            let mut initial = viewer.initial_light;
            json!({ "name": s.name, "label": s.label, "on": *(s.field)(&mut initial) })
        })
        .collect();
    let lightable: serde_json::Map<String, Value> = subject
        .modes()
        .into_iter()
        .map(|m| (storage_name(m).to_string(), json!(subject.lightable(m))))
        .collect();
    json!({
        "source": subject.source,
        "clips": clips,
        "storages": subject.modes().into_iter().map(storage_name).collect::<Vec<_>>(),
        "bones": bones,
        "width": SCREEN_WIDTH,
        "height": SCREEN_HEIGHT,
        "background": hex(BACKGROUND),
        "boneColour": hex(BONE_LINE),
        "jointColour": hex(JOINT_DOT),
        "light": light,
        "lightable": lightable,
    })
}

fn param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

fn number<T: std::str::FromStr>(query: &str, name: &str, default: Option<T>) -> Result<T, String> {
    match param(query, name) {
        Some(v) => v
            .parse()
            .map_err(|_| format!("parameter {name}={v} is not a number")),
        None => default.ok_or_else(|| format!("parameter {name} is missing")),
    }
}

/// The light settings a query names ([`LIGHT_SETTINGS`]; each off when absent).
fn light_options(query: &str) -> Result<LightOptions, String> {
    let mut options = LightOptions::default();
    for s in LIGHT_SETTINGS {
        *(s.field)(&mut options) = match param(query, s.name) {
            None | Some("0") => false,
            Some("1") => true,
            Some(v) => return Err(format!("parameter {}={v} is not 0 or 1", s.name)),
        };
    }
    Ok(options)
}

/// The frame a query names and how to draw it (no skeleton: the page draws it).
fn view(subject: &Subject, query: &str) -> Result<(usize, usize, FrameOptions), String> {
    let clip: usize = number(query, "clip", None)?;
    let f: usize = number(query, "frame", None)?;
    let info = subject
        .clips
        .get(clip)
        .ok_or_else(|| format!("clip {clip} does not exist ({} clips)", subject.clips.len()))?;
    if f >= info.frames {
        return Err(format!(
            "clip '{}' has {} frames, frame {f} does not exist",
            info.name, info.frames
        ));
    }
    let storage = match param(query, "storage").unwrap_or("rigid-gte") {
        "rigid-gte" => StorageMode::RigidGte,
        "baked-vertices" => StorageMode::BakedVertices,
        other => {
            return Err(format!(
                "storage {other} is not rigid-gte or baked-vertices"
            ))
        }
    };
    if !subject.has(storage) {
        return Err(format!(
            "{}: holds no {} tables",
            subject.source,
            storage_name(storage)
        ));
    }
    let d = Orbit::default();
    let orbit = Orbit {
        yaw: number(query, "yaw", Some(d.yaw))?,
        pitch: number(query, "pitch", Some(d.pitch))?,
        zoom: number(query, "zoom", Some(d.zoom))?,
    };
    Ok((
        clip,
        f,
        FrameOptions {
            storage,
            orbit,
            bones: false,
            compare: false,
            light: light_options(query)?,
        },
    ))
}

/// The console's picture of the frame a query names, as `preview --out` paints it, in PNG.
fn console_png(subject: &Subject, query: &str) -> Result<Vec<u8>, String> {
    let (clip, f, options) = view(subject, query)?;
    let canvas = render_frames(subject, clip, f..f + 1, &options)?
        .pop()
        .ok_or("internal: no picture drawn")?;
    picture::encode_png(&canvas)
}

fn frame(subject: &Subject, query: &str) -> Result<Value, String> {
    let (clip, f, options) = view(subject, query)?;
    let storage = options.storage;
    let framing = options.light.apply(Framing::new(subject.bounds(), options.orbit))?;
    let shot = subject.shot(clip, f, storage, &framing)?;
    let tables = subject.drawn_tables(storage, framing.lighting.is_some())?;
    // Which bone moves each triangle: the rigid range holding its first vertex.
    let bone_of_vertex = |v: u16| {
        (0..tables.bone_count()).find(|&b| {
            let bone = tables.bone(b);
            (bone.first_vertex..bone.first_vertex + bone.vertex_count).contains(&v)
        })
    };
    // The first vertex of each triangle (a quad's two triangles share its first point).
    let first_vertex: Vec<u16> = tables
        .primitives()
        .flat_map(|p| std::iter::repeat_n(p.points[0], p.triangle_count()))
        .collect();
    let mut bounds = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
    let triangles: Vec<[i32; 11]> = shot
        .triangles
        .iter()
        .map(|t| {
            for p in &t.xy {
                bounds = [
                    bounds[0].min(p.x as i32),
                    bounds[1].min(p.y as i32),
                    bounds[2].max(p.x as i32),
                    bounds[3].max(p.y as i32),
                ];
            }
            let c = vram_colour(t.colour);
            let bone = first_vertex
                .get(t.index as usize)
                .and_then(|&v| bone_of_vertex(v))
                .map(|b| b as i32)
                .unwrap_or(-1);
            [
                t.xy[0].x as i32,
                t.xy[0].y as i32,
                t.xy[1].x as i32,
                t.xy[1].y as i32,
                t.xy[2].x as i32,
                t.xy[2].y as i32,
                c[0] as i32,
                c[1] as i32,
                c[2] as i32,
                bone,
                t.index as i32,
            ]
        })
        .collect();
    let joints: Vec<[i64; 3]> = shot
        .joints
        .iter()
        .map(|j| {
            [
                j.xy[0] as i64,
                j.xy[1] as i64,
                j.parent.map(|q| q as i64).unwrap_or(-1),
            ]
        })
        .collect();
    Ok(json!({
        "clip": clip,
        "frame": f,
        "storage": storage_name(storage),
        "lit": framing.lighting.is_some() && tables.has_normals(),
        "triangles": triangles,
        "joints": joints,
        "bounds": if triangles.is_empty() { Value::Null } else { json!(bounds) },
    }))
}
